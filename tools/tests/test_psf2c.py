"""Tests of tools/psf2c, the console font converter, on tiny fonts built here."""
import gzip
import os
import struct
import tempfile
import unittest

from trigos import psf2c




def glyph_bytes(index, size):
    """A glyph whose every byte is its index: easy to recognise afterwards."""
    return bytes([index & 0xFF]) * size


def psf1(height=4, count=256, table=None):
    mode = (0x01 if count == 512 else 0) | (0x02 if table is not None else 0)
    data = b"\x36\x04" + bytes([mode, height])
    data += b"".join(glyph_bytes(i, height) for i in range(count))
    if table is not None:
        for glyph in range(count):
            for value in table.get(glyph, []):
                data += struct.pack("<H", value)
            data += struct.pack("<H", 0xFFFF)
    return data


def psf2(width=10, height=3, count=4, table=None, header_size=32, charsize=None):
    row_bytes = (width + 7) // 8
    size = row_bytes * height if charsize is None else charsize
    flags = 1 if table is not None else 0
    data = struct.pack("<4sIIIIIII", b"\x72\xb5\x4a\x86", 0, header_size, flags, count,
                       size, height, width)
    data += bytes(header_size - 32)
    data += b"".join(glyph_bytes(i + 1, size) for i in range(count))
    if table is not None:
        for glyph in range(count):
            data += table.get(glyph, b"") + b"\xff"
    return data


class Psf1(unittest.TestCase):
    def test_without_table_glyphs_are_in_latin1_order(self):
        font = psf2c.parse_font(psf1())
        self.assertEqual((font.width, font.height, font.row_bytes), (8, 4, 1))
        table, missing = psf2c.latin1_table(font)
        self.assertEqual(table[ord("A")], glyph_bytes(ord("A"), 4))
        self.assertEqual(table[0xE9], glyph_bytes(0xE9, 4))
        self.assertEqual(table[0x07], bytes(4), "control codes are blank")
        self.assertEqual(missing, [])

    def test_unicode_table_picks_glyphs_and_skips_sequences(self):
        # Glyph 1 is 'A' and, in a sequence, 'A'+combining ring; glyph 2 is e-acute;
        # glyph 3 is U+FFFD; glyph 5 lists 'A' again (the first listing wins).
        table = {1: [0x41, 0xFFFE, 0x41, 0x30A], 2: [0xE9], 3: [0xFFFD], 5: [0x41]}
        font = psf2c.parse_font(psf1(table=table))
        latin1, missing = psf2c.latin1_table(font)
        self.assertEqual(latin1[0x41], glyph_bytes(1, 4))
        self.assertEqual(latin1[0xE9], glyph_bytes(2, 4))
        self.assertEqual(latin1[ord("B")], glyph_bytes(3, 4), "missing -> U+FFFD")
        self.assertIn(ord("B"), missing)
        self.assertNotIn(0x41, missing)
        self.assertNotIn(0x85, missing, "C1 control codes are not asked for")

    def test_512_glyphs_and_gzip(self):
        font = psf2c.parse_font(gzip.compress(psf1(count=512, table={300: [0x41]})))
        self.assertEqual(len(font.glyphs), 512)
        self.assertEqual(psf2c.latin1_table(font)[0][0x41], glyph_bytes(300, 4))

    def test_truncated_glyphs(self):
        with self.assertRaisesRegex(psf2c.FontError, "truncated"):
            psf2c.parse_font(psf1()[:100])

    def test_table_cut_short(self):
        with self.assertRaisesRegex(psf2c.FontError, "Unicode table ends"):
            psf2c.parse_font(psf1(table={0: [0x41]})[:-4])


class Psf2(unittest.TestCase):
    def test_wide_glyphs_with_utf8_table(self):
        table = {0: "?".encode(), 1: "Ab".encode(), 2: "\u00e9".encode() + b"\xfe" + b"x"}
        font = psf2c.parse_font(psf2(table=table, header_size=40))
        self.assertEqual((font.width, font.height, font.row_bytes), (10, 3, 2))
        latin1, missing = psf2c.latin1_table(font)
        self.assertEqual(latin1[ord("A")], glyph_bytes(2, 6))
        self.assertEqual(latin1[ord("b")], glyph_bytes(2, 6))
        self.assertEqual(latin1[0xE9], glyph_bytes(3, 6))
        self.assertEqual(latin1[ord("x")], glyph_bytes(1, 6), "a sequence is not a mapping; '?'")
        self.assertIn(ord("x"), missing)

    def test_bad_utf8(self):
        with self.assertRaisesRegex(psf2c.FontError, "not UTF-8"):
            psf2c.parse_font(psf2(table={0: b"\xc3"}))

    def test_charsize_mismatch(self):
        with self.assertRaisesRegex(psf2c.FontError, "does not match"):
            psf2c.parse_font(psf2(charsize=5))

    def test_bad_header_fields(self):
        with self.assertRaisesRegex(psf2c.FontError, "header size"):
            data = psf2()
            psf2c.parse_font(data[:8] + struct.pack("<I", 16) + data[12:])
        with self.assertRaisesRegex(psf2c.FontError, "only 1..32 wide"):
            psf2c.parse_font(psf2(width=40))
        with self.assertRaisesRegex(psf2c.FontError, "no glyphs"):
            psf2c.parse_font(psf2(count=0))


class Errors(unittest.TestCase):
    def test_not_a_font(self):
        with self.assertRaisesRegex(psf2c.FontError, "not a PSF1 or PSF2"):
            psf2c.parse_font(b"hello world")

    def test_bad_gzip(self):
        with self.assertRaisesRegex(psf2c.FontError, "bad gzip"):
            psf2c.parse_font(b"\x1f\x8b" + b"\x00" * 20)

    def test_main_reports_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "bad.psf")
            output = os.path.join(directory, "font.c")
            with open(source, "wb") as handle:
                handle.write(b"\x36\x04\x00")
            self.assertEqual(psf2c.main([source, output]), 1)
            self.assertFalse(os.path.exists(output))


class Generate(unittest.TestCase):
    def test_c_output(self):
        font = psf2c.parse_font(psf2(table={0: b"?", 1: b"A"}))
        text = psf2c.generate_c(font, "tiny.psf", notice="public domain */ test")
        self.assertIn("static const unsigned char glyphs[256][6] = {", text)
        self.assertIn("\t{ 0x02, 0x02, 0x02, 0x02, 0x02, 0x02 }, /* 0x41 A */", text)
        self.assertIn(".width = 10,", text)
        self.assertIn(".row_bytes = 2,", text)
        self.assertIn("public domain * / test", text)
        self.assertEqual(text.count("\t{ "), 256)


if __name__ == "__main__":
    unittest.main()
