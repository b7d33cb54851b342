"""Tests of the screen checks: tools/screencheck on pictures made here, and
tools/run's screendump mode (command line, verdict from the log, the QMP
conversation against a fake QMP server)."""
import contextlib
import io
import json
import os
import socket
import tempfile
import threading
import unittest

from trigos import cli, qemu, run, run_common, screencheck



BLACK, WHITE, GREY = (0, 0, 0), (255, 255, 255), (192, 192, 192)
GREEN, RED, MAGENTA = (0x00, 0xA0, 0x00), (0xD0, 0x00, 0x00), (0xB0, 0x00, 0xB0)


def picture(width, height, paint):
    """A P6 PPM whose pixel (x, y) is paint(x, y)."""
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            pixels += bytes(paint(x, y))
    return b"P6\n# made by a test\n%d %d\n255\n" % (width, height) + bytes(pixels)


def banner(color, top=0.66, text=True):
    """Grey text on black above, @color below @top with a white block of 'text'."""
    def paint(x, y):
        if y < 40 * top:
            return GREY if x % 7 == 0 else BLACK
        if text and 20 <= x < 30 and y >= 34:
            return WHITE
        return color
    return paint


def check(data):
    return screencheck.find_banner(*screencheck.read_ppm(data))


class ReadPpm(unittest.TestCase):
    def test_header_with_comment(self):
        width, height, pixels = screencheck.read_ppm(picture(3, 2, lambda x, y: (x, y, 7)))
        self.assertEqual((width, height), (3, 2))
        self.assertEqual(pixels[3:6], bytes((1, 0, 7)))

    def test_malformed_files(self):
        good = picture(2, 2, lambda x, y: BLACK)
        for data, reason in ((b"P3\n2 2\n255\n", "not a binary PPM"),
                             (good[:-1], "bytes of pixels"),
                             (good.replace(b"255", b"65535"), "maxval"),
                             (b"P6\n2 x\n255\n", "not a number"),
                             (b"P6\n2", "cut short")):
            with self.assertRaisesRegex(screencheck.PictureError, reason):
                screencheck.read_ppm(data)


class FindBanner(unittest.TestCase):
    def test_each_verdict_by_its_colour(self):
        for color, word in ((GREEN, "PASS"), (RED, "FAIL"), (MAGENTA, "CRASH")):
            self.assertEqual(check(picture(40, 40, banner(color)))[0], word)

    def test_text_alone_is_no_banner(self):
        word, explanation = check(picture(40, 40, banner(BLACK)))
        self.assertIsNone(word)
        self.assertIn("no banner colour", explanation)

    def test_a_thin_strip_is_no_banner(self):
        self.assertIsNone(check(picture(40, 40, banner(GREEN, top=0.95)))[0])

    def test_a_banner_without_text_is_refused(self):
        word, explanation = check(picture(40, 40, banner(RED, text=False)))
        self.assertIsNone(word)
        self.assertIn("no text", explanation)

    def test_near_colours_do_not_count(self):
        self.assertIsNone(check(picture(40, 40, banner((0x00, 0xA1, 0x00))))[0])

    def test_main_exit_statuses(self):
        quiet = io.StringIO()
        with tempfile.TemporaryDirectory() as directory, contextlib.redirect_stdout(quiet), \
                contextlib.redirect_stderr(quiet):
            path = os.path.join(directory, "s.ppm")
            with open(path, "wb") as handle:
                handle.write(picture(40, 40, banner(RED)))
            self.assertEqual(screencheck.main(["--expect", "FAIL", path]), 0)
            self.assertEqual(screencheck.main(["--expect", "PASS", path]), 1)
            self.assertEqual(screencheck.main([os.path.join(directory, "none.ppm")]), 3)
            with open(path, "wb") as handle:
                handle.write(picture(40, 40, banner(BLACK)))
            self.assertEqual(screencheck.main([path]), 2)


class RunScreendumpMode(unittest.TestCase):
    def test_command_line(self):
        command = qemu.build_command(qemu.RunConfig(screen_socket="/t/q.sock", serial="none"))
        self.assertNotIn(qemu.DEBUG_EXIT_DEVICE, command)
        self.assertIn("-no-shutdown", command)
        self.assertIn("unix:/t/q.sock,server=on,wait=off", command)
        self.assertEqual(command[command.index("-serial") + 1], "none")
        self.assertEqual(command[command.index("-debugcon") + 1], "stdio")
        both = qemu.build_command(qemu.RunConfig(screen_socket="/t/q.sock", qmp_socket="/t/r.sock"))
        self.assertIn("unix:/t/r.sock,server=on,wait=off", both)   # two monitors, one each
        self.assertIn("unix:/t/q.sock,server=on,wait=off", both)
        normal = qemu.build_command(qemu.RunConfig())
        self.assertIn(qemu.DEBUG_EXIT_DEVICE, normal)
        self.assertNotIn("-debugcon", normal)
        with self.assertRaises(cli.UsageError):
            qemu.build_command(qemu.RunConfig(serial="file"))

    def test_verdict_from_log(self):
        totals = b"# Totals: pass:%d fail:0 skip:%d total:3\n"
        self.assertEqual(run_common.verdict_from_log(totals % (3, 0) + b"# RESULT: PASS\n"),
                         (run_common.EXIT_PASS, "PASS"))
        self.assertEqual(run_common.verdict_from_log(totals % (0, 3) + b"# RESULT: PASS\n"),
                         (run_common.EXIT_SKIP, "SKIP"))
        self.assertEqual(run_common.verdict_from_log(b"# RESULT: FAIL\r\n\n"),
                         (run_common.EXIT_FAIL, "FAIL"))
        self.assertEqual(run_common.verdict_from_log(b"# RESULT: CRASH\n"),
                         (run_common.EXIT_CRASH, "CRASH"))
        self.assertEqual(run_common.verdict_from_log(b"# RESULT: PASS\nmore\n")[0],
                         run_common.EXIT_NO_VERDICT)
        self.assertEqual(run_common.verdict_from_log(b"")[0], run_common.EXIT_NO_VERDICT)


class FakeQmp(threading.Thread):
    """Speaks enough QMP: greeting, capabilities, a SHUTDOWN event, screendump, quit."""

    def __init__(self, path, send_shutdown=True):
        super().__init__(daemon=True)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.send_shutdown = send_shutdown
        self.commands = []

    def run(self):
        with self.server:
            connection, _ = self.server.accept()
            self.talk(connection)

    def talk(self, connection):
        with connection, connection.makefile("rwb") as stream:
            def send(message):
                stream.write(json.dumps(message).encode() + b"\r\n")
                stream.flush()
            send({"QMP": {"version": {}, "capabilities": []}})
            for line in stream:
                request = json.loads(line)
                self.commands.append(request)
                if request["execute"] == "screendump":
                    with open(request["arguments"]["filename"], "wb") as handle:
                        handle.write(b"P6\n1 1\n255\n\0\0\0")
                send({"return": {}})
                if request["execute"] == "qmp_capabilities" and self.send_shutdown:
                    send({"event": "SHUTDOWN", "data": {"guest": True}})
                if request["execute"] == "quit":
                    break


class ScreenCaptureTalk(unittest.TestCase):
    def converse(self, send_shutdown):
        with tempfile.TemporaryDirectory() as directory:
            fake = FakeQmp(os.path.join(directory, "q.sock"), send_shutdown)
            fake.start()
            capture = run.ScreenCapture(os.path.join(directory, "q.sock"),
                                        os.path.join(directory, "s.ppm"), timeout=5)
            capture.start()
            if not send_shutdown:
                capture.request()
            capture.join(10)
            fake.join(5)
            return capture, [c["execute"] for c in fake.commands], \
                os.path.exists(os.path.join(directory, "s.ppm"))

    def test_shutdown_then_picture_then_quit(self):
        capture, commands, exists = self.converse(send_shutdown=True)
        self.assertIsNone(capture.error)
        self.assertTrue(capture.taken)
        self.assertTrue(exists)
        self.assertEqual(commands, ["qmp_capabilities", "screendump", "quit"])

    def test_requested_picture_without_shutdown(self):
        capture, commands, _ = self.converse(send_shutdown=False)
        self.assertTrue(capture.taken)
        self.assertEqual(commands, ["qmp_capabilities", "screendump", "quit"])


if __name__ == "__main__":
    unittest.main()
