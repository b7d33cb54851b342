#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read the verdict banner off a screenshot of trigos' screen console.

Usage: tools/screencheck [--expect PASS|FAIL|CRASH] FILE.ppm

At the end of a run the kernel fills the bottom third of the screen with a
banner of one colour (kernel/include/console/screen_console.h: PASS green 00a000,
FAIL red d00000, CRASH magenta b000b0) and writes the verdict and the counts
on it in white.  QEMU's screendump writes a binary PPM (P6, maxval 255).
The banner is found when its colour fills at least half of a line over at
least BANNER_MIN_SHARE of the screen, and it counts only with white text on
it.  Exit status: 0 the banner shows the expected verdict (or any verdict
without --expect), 1 it shows another one, 2 no banner, 3 unreadable file.
"""
import sys
from collections import Counter

from . import verdict

BANNER_COLORS = {
    (0x00, 0xA0, 0x00): verdict.PASS,
    (0xD0, 0x00, 0x00): verdict.FAIL,
    (0xB0, 0x00, 0xB0): verdict.CRASH,
}
TEXT_COLOR = (0xFF, 0xFF, 0xFF)
BANNER_MIN_SHARE = 0.10         # of the screen's pixels
TEXT_MIN_SHARE = 0.005          # of the banner's pixels

EXIT_MATCH, EXIT_MISMATCH, EXIT_NO_BANNER, EXIT_BAD_FILE = 0, 1, 2, 3


class PictureError(Exception):
    """The file is not a PPM this tool reads."""


def _header_fields(data, count):
    """The first @count whitespace-separated header fields (comments skipped) and the
    offset just past the single whitespace byte after the last one."""
    fields, position = [], 0
    while len(fields) < count:
        while position < len(data) and data[position:position + 1].isspace():
            position += 1
        if data[position:position + 1] == b"#":
            end = data.find(b"\n", position)
            if end < 0:
                raise PictureError("the header ends inside a comment")
            position = end + 1
            continue
        start = position
        while position < len(data) and not data[position:position + 1].isspace():
            position += 1
        if start == position:
            raise PictureError("the header is cut short")
        fields.append(data[start:position])
    return fields, position + 1


def read_ppm(data):
    """(width, height, pixel bytes RGB) of a binary PPM (P6, maxval 255)."""
    if data[:2] != b"P6":
        raise PictureError("not a binary PPM (P6) file")
    fields, offset = _header_fields(data, 4)
    try:
        width, height, maxval = (int(value) for value in fields[1:])
    except ValueError:
        raise PictureError("the header's size or maximum is not a number")
    if width <= 0 or height <= 0:
        raise PictureError("a picture of %dx%d pixels" % (width, height))
    if maxval != 255:
        raise PictureError("maxval %d (only 255, one byte a channel, is read)" % maxval)
    pixels = data[offset:offset + width * height * 3]
    if len(pixels) != width * height * 3:
        raise PictureError("%d bytes of pixels, %dx%d needs %d"
                           % (len(pixels), width, height, width * height * 3))
    return width, height, pixels


def find_banner(width, height, pixels):
    """(verdict word or None, explanation) for a picture."""
    line_bytes = width * 3
    rows = {}       # banner colour -> lines it fills at least half of
    text_pixels = Counter()
    for y in range(height):
        line = pixels[y * line_bytes:(y + 1) * line_bytes]
        colors = Counter(zip(line[0::3], line[1::3], line[2::3]))
        for color in BANNER_COLORS:
            if colors[color] * 2 >= width:
                rows.setdefault(color, []).append(y)
                text_pixels[color] += colors[TEXT_COLOR]
    if not rows:
        return None, "no banner colour fills half of any line"
    color = max(rows, key=lambda key: len(rows[key]))
    word = BANNER_COLORS[color]
    banner_pixels = len(rows[color]) * width
    share = banner_pixels / (width * height)
    if share < BANNER_MIN_SHARE:
        return None, ("the %s colour fills only %.1f%% of the screen (a banner fills at least "
                      "%.0f%%)" % (word, 100 * share, 100 * BANNER_MIN_SHARE))
    if text_pixels[color] < TEXT_MIN_SHARE * banner_pixels:
        return None, "a %s-coloured area with no text on it" % word
    return word, "%s banner over %.0f%% of the screen, lines %d-%d" % (
        word, 100 * share, rows[color][0], rows[color][-1])


def check_file(path):
    """(verdict word or None, explanation); PictureError/OSError for a bad file."""
    with open(path, "rb") as handle:
        return find_banner(*read_ppm(handle.read()))


def main(argv):
    args = list(argv)
    expect = None
    if args[:1] == ["--expect"] and len(args) >= 2:
        expect = args[1].upper()
        args = args[2:]
    if len(args) != 1 or (expect is not None and expect not in BANNER_COLORS.values()):
        print("usage: tools/screencheck [--expect PASS|FAIL|CRASH] FILE.ppm", file=sys.stderr)
        return EXIT_BAD_FILE
    try:
        word, explanation = check_file(args[0])
    except OSError as error:
        print("screencheck: %s: %s" % (args[0], error.strerror or error), file=sys.stderr)
        return EXIT_BAD_FILE
    except PictureError as error:
        print("screencheck: %s: %s" % (args[0], error), file=sys.stderr)
        return EXIT_BAD_FILE
    print("screencheck: %s: %s" % (args[0], explanation))
    if word is None:
        return EXIT_NO_BANNER
    if expect is not None and word != expect:
        print("screencheck: expected %s" % expect)
        return EXIT_MISMATCH
    return EXIT_MATCH
