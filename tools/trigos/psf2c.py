#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Convert a Linux console font (PSF1 or PSF2, optionally gzip-compressed)
into the C table of the kernel's screen console (kernel/lib/font.h).

Usage: tools/psf2c [--notice TEXT] FONT.psf[.gz] OUTPUT.c

The kernel indexes glyphs by Latin-1 code (0x00-0xff, which is also the
Unicode code point), so the font's glyphs are picked through its Unicode
table: the glyph listed for U+0041 becomes entry 0x41.  A font without a
table is taken to be in Latin-1 order already.  Code points the font does not
cover get the glyph of U+FFFD or '?'; control codes (C0, DEL, C1) stay blank,
the console never draws them.

Formats (the kbd documentation, "The PC Screen Font File Format"):
  PSF1: magic 36 04, u8 mode, u8 charsize (bytes a glyph = rows, width 8);
        mode bit 0: 512 glyphs instead of 256, bit 1 or 2: a Unicode table
        follows the glyphs, as little-endian u16 per glyph, 0xFFFE starting
        a sequence, 0xFFFF ending the glyph's entry.
  PSF2: magic 72 b5 4a 86, then u32 version, headersize, flags, length,
        charsize, height, width (little-endian); flags bit 0: a Unicode table
        follows, UTF-8 per glyph, 0xFE starting a sequence, 0xFF ending it.
Sequences (a glyph for several combined code points) are not needed here and
are skipped.  A malformed font is an error with a message, never a table of
garbage.
"""
import gzip
import os
import struct
import sys

PSF1_MAGIC = b"\x36\x04"
PSF1_MODE_512 = 0x01
PSF1_MODE_HAS_TABLE = 0x02 | 0x04
PSF1_SEPARATOR = 0xFFFF
PSF1_SEQUENCE = 0xFFFE
PSF2_MAGIC = b"\x72\xb5\x4a\x86"
PSF2_HEADER = struct.Struct("<4sIIIIIII")
PSF2_HAS_TABLE = 0x01
PSF2_SEPARATOR = 0xFF
PSF2_SEQUENCE = 0xFE

# What the kernel can draw: kernel/lib/font.h's limits.
MAX_WIDTH = 32
MAX_HEIGHT = 64
TABLE_SIZE = 256
REPLACEMENTS = (0xFFFD, ord("?"))


class FontError(Exception):
    """The file is not a console font this tool understands."""


class Font:
    def __init__(self, width, height, glyphs, unicode_map):
        self.width = width
        self.height = height
        self.row_bytes = (width + 7) // 8
        self.glyphs = glyphs            # list of bytes, row_bytes * height each
        self.unicode_map = unicode_map  # code point -> glyph index, or None


def _split_glyphs(data, offset, count, size):
    end = offset + count * size
    if len(data) < end:
        raise FontError("truncated: %d glyphs of %d bytes need %d bytes after the header, "
                        "the file has %d" % (count, size, count * size, len(data) - offset))
    return [data[offset + i * size:offset + (i + 1) * size] for i in range(count)], end


def _check_size(width, height):
    if not 1 <= width <= MAX_WIDTH or not 1 <= height <= MAX_HEIGHT:
        raise FontError("glyphs of %dx%d pixels: only 1..%d wide and 1..%d high are supported"
                        % (width, height, MAX_WIDTH, MAX_HEIGHT))


def _parse_psf1(data):
    if len(data) < 4:
        raise FontError("truncated PSF1 header")
    mode, charsize = data[2], data[3]
    _check_size(8, charsize)
    count = 512 if mode & PSF1_MODE_512 else 256
    glyphs, end = _split_glyphs(data, 4, count, charsize)
    unicode_map = None
    if mode & PSF1_MODE_HAS_TABLE:
        unicode_map = _psf1_table(data[end:], count)
    return Font(8, charsize, glyphs, unicode_map)


def _psf1_table(table, count):
    unicode_map = {}
    position = 0
    for glyph in range(count):
        in_sequence = False
        while True:
            if position + 2 > len(table):
                raise FontError("Unicode table ends inside the entry of glyph %d" % glyph)
            (value,) = struct.unpack_from("<H", table, position)
            position += 2
            if value == PSF1_SEPARATOR:
                break
            if value == PSF1_SEQUENCE:
                in_sequence = True
            elif not in_sequence:
                unicode_map.setdefault(value, glyph)
    return unicode_map


def _parse_psf2(data):
    if len(data) < PSF2_HEADER.size:
        raise FontError("truncated PSF2 header")
    (_, version, header_size, flags, count, charsize, height,
     width) = PSF2_HEADER.unpack_from(data)
    if version != 0:
        raise FontError("PSF2 version %d (only 0 exists)" % version)
    if header_size < PSF2_HEADER.size or header_size > len(data):
        raise FontError("PSF2 header size %d is impossible" % header_size)
    _check_size(width, height)
    if count == 0:
        raise FontError("PSF2 font with no glyphs")
    if charsize != height * ((width + 7) // 8):
        raise FontError("PSF2 glyph size %d does not match %dx%d pixels"
                        % (charsize, width, height))
    glyphs, end = _split_glyphs(data, header_size, count, charsize)
    unicode_map = None
    if flags & PSF2_HAS_TABLE:
        unicode_map = _psf2_table(data[end:], count)
    return Font(width, height, glyphs, unicode_map)


def _psf2_table(table, count):
    unicode_map = {}
    position = 0
    for glyph in range(count):
        end = table.find(bytes([PSF2_SEPARATOR]), position)
        if end < 0:
            raise FontError("Unicode table ends inside the entry of glyph %d" % glyph)
        entry = table[position:end]
        position = end + 1
        single = entry.split(bytes([PSF2_SEQUENCE]))[0]
        try:
            text = single.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FontError("Unicode table entry of glyph %d is not UTF-8 (%s)"
                            % (glyph, error.reason))
        for character in text:
            unicode_map.setdefault(ord(character), glyph)
    return unicode_map


def parse_font(data):
    """Parse PSF1/PSF2 bytes (gzip-compressed or not) into a Font."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise FontError("bad gzip data: %s" % error)
    if data[:2] == PSF1_MAGIC:
        return _parse_psf1(data)
    if data[:4] == PSF2_MAGIC:
        return _parse_psf2(data)
    raise FontError("not a PSF1 or PSF2 font (magic %s)" % data[:4].hex())


def _is_control(code):
    return code < 0x20 or 0x7F <= code < 0xA0


def latin1_table(font):
    """The 256 glyphs in Latin-1 order, and the code points that fell back."""
    def glyph_of(code):
        if font.unicode_map is None:
            return code if code < len(font.glyphs) else None
        return font.unicode_map.get(code)

    replacement = None
    for code in REPLACEMENTS:
        if glyph_of(code) is not None:
            replacement = glyph_of(code)
            break
    blank = bytes(font.row_bytes * font.height)
    table, missing = [], []
    for code in range(TABLE_SIZE):
        index = None if _is_control(code) else glyph_of(code)
        if index is None and not _is_control(code):
            missing.append(code)
            index = replacement
        table.append(blank if index is None else font.glyphs[index])
    return table, missing


def generate_c(font, source_name, notice=None):
    table, missing = latin1_table(font)
    lines = [
        "/* Generated by tools/psf2c from %s; do not edit. */" % source_name,
    ]
    if notice:
        lines.append("/* Font: %s */" % notice.replace("*/", "* /"))
    if missing:
        lines.append("/* Not in the font, drawn as the replacement glyph: %s */"
                     % " ".join("%02x" % code for code in missing))
    lines += [
        "#include <lib/font.h>",
        "",
        "static const unsigned char glyphs[%d][%d] = {" % (TABLE_SIZE,
                                                           font.row_bytes * font.height),
    ]
    for code, glyph in enumerate(table):
        comment = " /* 0x%02x %s */" % (code, chr(code)) if 0x20 < code < 0x7F \
            else " /* 0x%02x */" % code
        lines.append("\t{ %s },%s" % (", ".join("0x%02x" % b for b in glyph), comment))
    lines += [
        "};",
        "",
        "const struct bitmap_font console_font = {",
        "\t.width = %d," % font.width,
        "\t.height = %d," % font.height,
        "\t.row_bytes = %d," % font.row_bytes,
        "\t.glyphs = &glyphs[0][0],",
        "};",
        "",
    ]
    return "\n".join(lines)


def main(argv):
    args = list(argv)
    notice = None
    if args[:1] == ["--notice"] and len(args) >= 2:
        notice = args[1]
        args = args[2:]
    if len(args) != 2 or args[0].startswith("-"):
        print("usage: tools/psf2c [--notice TEXT] FONT.psf[.gz] OUTPUT.c", file=sys.stderr)
        return 2
    source, output = args
    try:
        with open(source, "rb") as handle:
            font = parse_font(handle.read())
    except OSError as error:
        print("psf2c: %s: %s" % (source, error.strerror), file=sys.stderr)
        return 1
    except FontError as error:
        print("psf2c: %s: %s" % (source, error), file=sys.stderr)
        return 1
    text = generate_c(font, os.path.basename(source), notice)
    temporary = output + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(text)
    os.replace(temporary, output)
    return 0
