/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_FONT_H
#define TRIGOS_FONT_H
/*
 * A bitmap font for the screen console.  The kernel's one font,
 * console_font, is generated at build time by tools/psf2c from a Debian
 * console font (the Makefile's CONSOLE_FONT) into build/, never committed.
 */

/**
 * struct bitmap_font - 256 glyphs in Latin-1 (= Unicode U+0000-U+00FF) order
 * @width: pixels a glyph, 1..32
 * @height: rows a glyph, 1..64
 * @row_bytes: bytes a row, (@width + 7) / 8; the leftmost pixel is the
 *             most significant bit of the row's first byte (PSF order)
 * @glyphs: 256 * @height * @row_bytes bytes; control codes are blank
 */
struct bitmap_font {
	unsigned int width;
	unsigned int height;
	unsigned int row_bytes;
	const unsigned char *glyphs;
};

extern const struct bitmap_font console_font;

#endif
