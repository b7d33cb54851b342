// SPDX-License-Identifier: MIT
/*
 * Linear framebuffer drawing.  The loader's framebuffer tag gives, for each
 * of red, green and blue, the bit position and size of its field in a pixel
 * (Multiboot2 spec 3.6.12, framebuffer_type 1); a pixel is stored
 * little-endian in bytes_per_pixel bytes.  GOP framebuffers are usually
 * 32-bit BGRX (positions 16/8/0) and VBE modes often 24-bit; both, and any
 * other layout that fits, are drawn the same way.
 */
#include <lib/framebuffer.h>

#define FB_TYPE_RGB	1
#define FIELD_MAX_BITS	16

static bool field_fits(uint8_t position, uint8_t size, unsigned int bits)
{
	return size >= 1 && size <= FIELD_MAX_BITS && position + size <= bits;
}

const char *framebuffer_surface_init(struct framebuffer_surface *surface, void *base,
				     const struct boot_framebuffer *info)
{
	unsigned int bits = info->bits_per_pixel;

	if (info->type != FB_TYPE_RGB)
		return info->type == 0 ? "an indexed-colour framebuffer (type 0) is not supported"
		       : info->type == 2 ? "an EGA text framebuffer (type 2) is not supported"
		       : "an unknown framebuffer type is not supported";
	if (bits != 24 && bits != 32)
		return "only 24 and 32 bits a pixel are supported";
	if (info->width == 0 || info->height == 0)
		return "the framebuffer has no pixels";
	if (info->pitch / (bits / 8) < info->width)
		return "the pitch is shorter than a line of pixels";
	if (!field_fits(info->red_position, info->red_size, bits) ||
	    !field_fits(info->green_position, info->green_size, bits) ||
	    !field_fits(info->blue_position, info->blue_size, bits))
		return "a colour field lies outside the pixel";
	surface->base = base;
	surface->pitch = info->pitch;
	surface->width = info->width;
	surface->height = info->height;
	surface->bytes_per_pixel = bits / 8;
	surface->red_position = info->red_position;
	surface->red_size = info->red_size;
	surface->green_position = info->green_position;
	surface->green_size = info->green_size;
	surface->blue_position = info->blue_position;
	surface->blue_size = info->blue_size;
	return NULL;
}

/* An 8-bit intensity scaled to a field of @size bits, rounded. */
static uint32_t field(uint32_t intensity, uint8_t position, uint8_t size)
{
	uint32_t maximum = (1u << size) - 1;

	return ((intensity * maximum + 127) / 255) << position;
}

uint32_t framebuffer_pixel(const struct framebuffer_surface *surface, uint32_t rgb)
{
	return field((rgb >> 16) & 0xff, surface->red_position, surface->red_size) |
	       field((rgb >> 8) & 0xff, surface->green_position, surface->green_size) |
	       field(rgb & 0xff, surface->blue_position, surface->blue_size);
}

/* One horizontal run of @count pixels from @x on line @y, already clipped. */
static void fill_run(const struct framebuffer_surface *surface, uint32_t x, uint32_t y,
		     uint32_t count, uint32_t pixel)
{
	uint8_t *at = surface->base + (uint64_t)y * surface->pitch +
		      (uint64_t)x * surface->bytes_per_pixel;

	if (surface->bytes_per_pixel == 4) {
		uint32_t *words = (uint32_t *)at;

		for (uint32_t i = 0; i < count; i++)
			words[i] = pixel;
		return;
	}
	for (uint32_t i = 0; i < count; i++, at += 3) {
		at[0] = pixel & 0xff;
		at[1] = (pixel >> 8) & 0xff;
		at[2] = (pixel >> 16) & 0xff;
	}
}

void framebuffer_fill(const struct framebuffer_surface *surface, uint32_t x, uint32_t y,
		      uint32_t width, uint32_t height, uint32_t pixel)
{
	if (x >= surface->width || y >= surface->height)
		return;
	if (width > surface->width - x)
		width = surface->width - x;
	if (height > surface->height - y)
		height = surface->height - y;
	for (uint32_t line = y; line < y + height; line++)
		fill_run(surface, x, line, width, pixel);
}

void framebuffer_draw_glyph(const struct framebuffer_surface *surface,
			    const struct bitmap_font *font, unsigned char code, uint32_t x,
			    uint32_t y, unsigned int scale, uint32_t foreground, uint32_t background)
{
	const unsigned char *glyph = font->glyphs + (size_t)code * font->height * font->row_bytes;

	for (unsigned int row = 0; row < font->height; row++) {
		const unsigned char *bits = glyph + row * font->row_bytes;
		uint32_t column = 0;

		/* Runs of equal pixels are filled at once: fewer calls, same result. */
		while (column < font->width) {
			bool set = bits[column / 8] & (0x80 >> (column % 8));
			uint32_t end = column + 1;

			while (end < font->width &&
			       (bool)(bits[end / 8] & (0x80 >> (end % 8))) == set)
				end++;
			framebuffer_fill(surface, x + column * scale, y + row * scale,
					 (end - column) * scale, scale, set ? foreground : background);
			column = end;
		}
	}
}
