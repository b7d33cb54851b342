// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/framebuffer.c, drawing into a buffer. */
#include <harness/test.h>
#include <lib/framebuffer.h>
#include <lib/string.h>

#define WIDTH	6
#define HEIGHT	5
#define PITCH	32	/* wider than a line of 6 pixels at 4 bytes: pitch is honoured */

static uint8_t pixels[PITCH * HEIGHT];

/* A 3x2 font: glyph 'A' is "X.X" over ".X.", every other glyph blank. */
static unsigned char tiny_glyphs[256][2];
static const struct bitmap_font tiny_font = { 3, 2, 1, &tiny_glyphs[0][0] };

static struct boot_framebuffer rgb_info(uint8_t bits, uint32_t pitch)
{
	return (struct boot_framebuffer){
		.address = 0, .pitch = pitch, .width = WIDTH, .height = HEIGHT,
		.bits_per_pixel = bits, .type = 1,
		.red_position = 16, .red_size = 8, .green_position = 8, .green_size = 8,
		.blue_position = 0, .blue_size = 8,
	};
}

static uint32_t pixel_at(const struct framebuffer_surface *surface, uint32_t x, uint32_t y)
{
	const uint8_t *at = surface->base + y * surface->pitch + x * surface->bytes_per_pixel;
	uint32_t value = at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16;

	return surface->bytes_per_pixel == 4 ? value | (uint32_t)at[3] << 24 : value;
}

static void unusable_framebuffers_are_refused(void)
{
	struct framebuffer_surface surface;
	struct boot_framebuffer info = rgb_info(32, PITCH);

	info.type = 0;
	EXPECT_NOT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	info.type = 2;
	EXPECT_NOT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	info = rgb_info(16, PITCH);
	EXPECT_NOT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	info = rgb_info(32, WIDTH * 4 - 1);
	EXPECT_NOT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	info = rgb_info(24, PITCH);
	info.red_position = 20;		/* 20 + 8 bits do not fit in 24 */
	EXPECT_NOT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	info = rgb_info(32, PITCH);
	info.blue_size = 0;
	EXPECT_NOT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	info = rgb_info(32, PITCH);
	EXPECT_NULL(framebuffer_surface_init(&surface, pixels, &info));
}

static void pixels_follow_the_colour_layout(void)
{
	struct framebuffer_surface surface;
	struct boot_framebuffer info = rgb_info(32, PITCH);

	ASSERT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	EXPECT_EQ(framebuffer_pixel(&surface, 0x123456), 0x123456u);
	/* RGBX (red in the low byte), as some firmware sets it up. */
	info.red_position = 0;
	info.blue_position = 16;
	ASSERT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	EXPECT_EQ(framebuffer_pixel(&surface, 0x123456), 0x563412u);
	/* 5-6-5 fields in a 24-bit pixel: full intensity fills each field. */
	info = rgb_info(24, PITCH);
	info.red_position = 11, info.red_size = 5;
	info.green_position = 5, info.green_size = 6;
	info.blue_position = 0, info.blue_size = 5;
	ASSERT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	EXPECT_EQ(framebuffer_pixel(&surface, 0xffffff), 0xffffu);
	EXPECT_EQ(framebuffer_pixel(&surface, 0xff0000), 0xf800u);
	EXPECT_EQ(framebuffer_pixel(&surface, 0x008000), 0x0400u);	/* 128/255*63 = 32 */
}

static void fill_is_clipped_and_keeps_to_the_pitch(void)
{
	struct framebuffer_surface surface;
	struct boot_framebuffer info = rgb_info(32, PITCH);

	memset(pixels, 0xee, sizeof(pixels));
	ASSERT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	framebuffer_fill(&surface, 4, 3, 100, 100, 0x00abcdef);
	EXPECT_EQ(pixel_at(&surface, 4, 3), 0x00abcdefu);
	EXPECT_EQ(pixel_at(&surface, 5, 4), 0x00abcdefu);
	EXPECT_EQ(pixel_at(&surface, 3, 3), 0xeeeeeeeeu);
	EXPECT_EQ(pixel_at(&surface, 4, 2), 0xeeeeeeeeu);
	/* The padding past the last pixel of a line is never written. */
	EXPECT_EQ(pixels[3 * PITCH + WIDTH * 4], 0xee);
	framebuffer_fill(&surface, WIDTH, 0, 1, 1, 0);	/* wholly outside: nothing */
	EXPECT_EQ(pixels[WIDTH * 4], 0xee);
}

static void glyphs_are_scaled_in_24_bits(void)
{
	struct framebuffer_surface surface;
	struct boot_framebuffer info = rgb_info(24, 20);

	tiny_glyphs['A'][0] = 0xa0;	/* X.X */
	tiny_glyphs['A'][1] = 0x40;	/* .X. */
	memset(pixels, 0x55, sizeof(pixels));
	ASSERT_NULL(framebuffer_surface_init(&surface, pixels, &info));
	framebuffer_draw_glyph(&surface, &tiny_font, 'A', 0, 0, 2, 0xffffff, 0x000000);
	/* Each font pixel is 2x2: columns 0-1 set, 2-3 clear, 4-5 set on lines 0-1. */
	EXPECT_EQ(pixel_at(&surface, 0, 0), 0xffffffu);
	EXPECT_EQ(pixel_at(&surface, 1, 1), 0xffffffu);
	EXPECT_EQ(pixel_at(&surface, 2, 0), 0u);
	EXPECT_EQ(pixel_at(&surface, 5, 1), 0xffffffu);
	EXPECT_EQ(pixel_at(&surface, 0, 2), 0u);
	EXPECT_EQ(pixel_at(&surface, 2, 3), 0xffffffu);
	EXPECT_EQ(pixel_at(&surface, 0, 4), 0x555555u);	/* below the glyph: untouched */
	EXPECT_EQ(pixels[18], 0x55);	/* the pitch's 2 padding bytes of line 0 */
}

static const struct test_case lib_framebuffer_cases[] = {
	TEST_CASE(unusable_framebuffers_are_refused),
	TEST_CASE(pixels_follow_the_colour_layout),
	TEST_CASE(fill_is_clipped_and_keeps_to_the_pitch),
	TEST_CASE(glyphs_are_scaled_in_24_bits),
};
TEST_SUITE(lib_framebuffer, lib_framebuffer_cases, NULL, NULL);
