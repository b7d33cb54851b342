/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_FRAMEBUFFER_H
#define TRIGOS_LIB_FRAMEBUFFER_H
/*
 * Drawing on a linear direct-colour framebuffer (multiboot2 framebuffer type
 * 1, Multiboot2 spec 3.6.12): pixel packing from the loader's colour layout,
 * rectangles and scaled glyphs.  Pure memory writes, so it also runs on the
 * host against a buffer.
 */

#include <stdint.h>

#include <lib/boot_info.h>
#include <lib/font.h>

/** struct framebuffer_surface - where and how to draw */
struct framebuffer_surface {
	uint8_t *base;
	uint32_t pitch;			/* bytes from one line to the next */
	uint32_t width, height;		/* pixels */
	unsigned int bytes_per_pixel;	/* 3 or 4 */
	uint8_t red_position, red_size;
	uint8_t green_position, green_size;
	uint8_t blue_position, blue_size;
};

/**
 * framebuffer_surface_init - check @info and describe it as a surface at @base
 *
 * Accepts direct RGB (type 1) at 24 or 32 bits a pixel, any pitch at least a
 * line's pixels, colour fields of 1..16 bits inside the pixel.
 *
 * Return: NULL and *@surface filled in, or why the framebuffer cannot be used.
 */
const char *framebuffer_surface_init(struct framebuffer_surface *surface, void *base,
				     const struct boot_framebuffer *info);

/** framebuffer_pixel - the pixel value of colour @rgb (0xRRGGBB) on @surface */
uint32_t framebuffer_pixel(const struct framebuffer_surface *surface, uint32_t rgb);

/** framebuffer_fill - fill a rectangle, clipped to the surface, with @pixel */
void framebuffer_fill(const struct framebuffer_surface *surface, uint32_t x, uint32_t y,
		      uint32_t width, uint32_t height, uint32_t pixel);

/**
 * framebuffer_draw_glyph - draw glyph @code of @font with its top-left corner
 * at (@x, @y), each font pixel a @scale x @scale square, set bits @foreground
 * and clear ones @background; clipped to the surface
 */
void framebuffer_draw_glyph(const struct framebuffer_surface *surface,
			    const struct bitmap_font *font, unsigned char code, uint32_t x,
			    uint32_t y, unsigned int scale, uint32_t foreground, uint32_t background);

#endif
