// SPDX-License-Identifier: MIT
/*
 * The screen console (see screen_console.h).
 *
 * Text goes into a grid of cells (kernel/lib/text_grid.c); after each write
 * the cells of the dirty rows that differ from what is on the screen are
 * drawn, nothing else.  The framebuffer itself is never read (reads of
 * uncached video memory are very slow on real hardware), so a second grid,
 * @drawn, remembers what the screen shows.  Scrolling moves cells, and only
 * the cells whose character or colour changed are redrawn: blank space stays.
 *
 * Panic: the console lock lets the CPU that holds it in again, and a panic
 * ignores it altogether, so a write may arrive on the CPU that is already
 * inside this file (it faulted while drawing, or took an NMI).  Such a
 * nested write is drawn in full over whatever the interrupted one left;
 * a write nested in that one (drawing itself faults) turns the screen
 * console off, so that the report still reaches the other consoles
 * instead of recursing.  No lock is taken here, so nothing can deadlock.
 */
#include <boot/boot.h>
#include <log/console.h>
#include <cpu/cpu.h>
#include <lib/font.h>
#include <log/log.h>
#include <arch/paging.h>
#include <mm/memory_setup.h>
#include <console/screen_console.h>
#include <lib/format.h>
#include <lib/framebuffer.h>
#include <lib/string.h>
#include <lib/text_grid.h>

#define MAX_COLUMNS		320
#define MAX_ROWS		135
#define BOOT_MAP_LIMIT		(4ull << 30)
#define NO_CPU			(~0u)
#define NESTING_LIMIT		2

enum text_color {
	COLOR_NORMAL,
	COLOR_FAILURE,		/* "not ok" lines */
	COLOR_HEADLINE,		/* "# RESULT", "# PANIC" */
	COLOR_COUNT,
};

static const uint32_t text_rgb[COLOR_COUNT] = { 0xc0c0c0, 0xff6060, 0xffffff };
#define BACKGROUND_RGB		0x000000
#define BANNER_TEXT_RGB		0xffffff

static struct text_cell shadow[MAX_COLUMNS * MAX_ROWS];
static struct text_cell drawn[MAX_COLUMNS * MAX_ROWS];
static struct text_grid grid;
static struct framebuffer_surface surface;
static uint32_t text_pixels[COLOR_COUNT], background_pixel;
static unsigned int scale, cell_width, cell_height, full_rows;
static bool active, deferred, broken;
static unsigned int writer_cpu = NO_CPU, nesting;

/* The last banner, drawn again if the screen is redrawn. */
static enum verdict banner_verdict;
static char banner_detail[96];
static bool banner_shown;

static void draw_dirty_cells(bool everything)
{
	if (everything)
		text_grid_mark_all(&grid);
	for (unsigned int row = grid.dirty_first; row <= grid.dirty_last && row < grid.rows; row++) {
		for (unsigned int column = 0; column < grid.columns; column++) {
			size_t index = (size_t)row * grid.columns + column;
			struct text_cell cell = shadow[index];

			if (!everything && cell.code == drawn[index].code &&
			    cell.color == drawn[index].color)
				continue;
			framebuffer_draw_glyph(&surface, &console_font, cell.code,
					       column * cell_width, row * cell_height, scale,
					       text_pixels[cell.color % COLOR_COUNT],
					       background_pixel);
			drawn[index] = cell;
		}
	}
	text_grid_clean(&grid);
}

static bool starts_with(const char *text, size_t length, const char *prefix)
{
	size_t prefix_length = strlen(prefix);

	return length >= prefix_length && memcmp(text, prefix, prefix_length) == 0;
}

/* The colour of the line starting at @text: failures stand out. */
static uint8_t line_color(const char *text, size_t length)
{
	while (length && *text == ' ') {
		text++;
		length--;
	}
	if (starts_with(text, length, "not ok"))
		return COLOR_FAILURE;
	if (starts_with(text, length, VERDICT_RESULT_PREFIX) || starts_with(text, length, "# PANIC"))
		return COLOR_HEADLINE;
	return COLOR_NORMAL;
}

static void put_text(const char *text, size_t length)
{
	while (length) {
		const char *newline = memchr(text, '\n', length);
		size_t line = newline ? (size_t)(newline - text) + 1 : length;

		if (grid.column == 0)
			grid.color = line_color(text, line);
		text_grid_write(&grid, text, line);
		text += line;
		length -= line;
	}
}

static void screen_write(const char *text, size_t length)
{
	unsigned int me = cpu_id();

	if (broken)
		return;
	if (writer_cpu == me) {
		/* Re-entered on this CPU: a fault or NMI inside the drawing. */
		if (++nesting > NESTING_LIMIT) {
			broken = true;
			return;
		}
		put_text(text, length);
		draw_dirty_cells(true);
		nesting--;
		return;
	}
	writer_cpu = me;
	nesting = 1;
	put_text(text, length);
	draw_dirty_cells(false);
	nesting = 0;
	writer_cpu = NO_CPU;
}

static struct console_backend screen_backend = {
	.name = "screen",
	.write = screen_write,
};

/* The smallest scale at which the grid fits the cell arrays. */
static unsigned int choose_scale(void)
{
	unsigned int chosen = 1;

	while (surface.width / (console_font.width * chosen) > MAX_COLUMNS ||
	       surface.height / (console_font.height * chosen) > MAX_ROWS)
		chosen++;
	return chosen;
}

static bool start(void)
{
	const struct boot_framebuffer *info = &boot_info.framebuffer;
	uint64_t size = (uint64_t)info->pitch * info->height;
	void *base = map_phys(info->address, size, MAP_WRITE | MAP_UNCACHED);

	if (!base) {
		ktap_note("screen: cannot map the framebuffer at 0x%llx; no screen console",
			  (unsigned long long)info->address);
		return false;
	}
	surface.base = base;
	scale = choose_scale();
	cell_width = console_font.width * scale;
	cell_height = console_font.height * scale;
	full_rows = surface.height / cell_height;
	if (surface.width / cell_width == 0 || full_rows == 0) {
		ktap_note("screen: %ux%u pixels is too small for the font; no screen console",
			  surface.width, surface.height);
		return false;
	}
	for (unsigned int color = 0; color < COLOR_COUNT; color++)
		text_pixels[color] = framebuffer_pixel(&surface, text_rgb[color]);
	background_pixel = framebuffer_pixel(&surface, BACKGROUND_RGB);
	text_grid_init(&grid, shadow, surface.width / cell_width, full_rows);
	/*
	 * Scrolling redraws nearly every cell with text; a third of the screen
	 * at a time makes that a third as often per line, which is what
	 * makes the screen console cheap under TCG (and on slow uncached
	 * video memory).
	 */
	grid.scroll_lines = full_rows / 3 ? full_rows / 3 : 1;
	framebuffer_fill(&surface, 0, 0, surface.width, surface.height, background_pixel);
	for (size_t i = 0; i < (size_t)grid.columns * grid.rows; i++)
		drawn[i] = (struct text_cell){ ' ', COLOR_NORMAL };
	text_grid_clean(&grid);
	active = true;
	console_register(&screen_backend);
	ktap_note("screen: %ux%u, %u bits a pixel, pitch %u, at 0x%llx (uncached): "
		  "%ux%u characters of %ux%u pixels", surface.width, surface.height,
		  surface.bytes_per_pixel * 8, surface.pitch, (unsigned long long)info->address,
		  grid.columns, grid.rows, cell_width, cell_height);
	return true;
}

bool screen_console_init(void)
{
	const struct boot_framebuffer *info = &boot_info.framebuffer;
	const char *problem;

	if (active || deferred)
		return true;
	if (!boot_info.has_framebuffer) {
		ktap_note("screen: the boot loader gave no framebuffer; no screen console");
		return false;
	}
	problem = framebuffer_surface_init(&surface, NULL, info);
	if (problem) {
		ktap_note("screen: framebuffer %ux%u, type %u, %u bits a pixel: %s; "
			  "no screen console", info->width, info->height, info->type,
			  info->bits_per_pixel, problem);
		return false;
	}
	if (info->address + (uint64_t)info->pitch * info->height > BOOT_MAP_LIMIT) {
		ktap_note("screen: the framebuffer at 0x%llx is above 4 GiB; the screen console "
			  "starts once the final page tables are up", (unsigned long long)info->address);
		deferred = true;
		memory_when_mapped(screen_console_late_init);
		return true;
	}
	return start();
}

void screen_console_late_init(void)
{
	if (deferred) {
		deferred = false;
		start();
	}
}

static uint32_t banner_rgb(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_PASS:
	case VERDICT_SKIP:
		return SCREEN_BANNER_PASS;
	case VERDICT_FAIL:
		return SCREEN_BANNER_FAIL;
	case VERDICT_CRASH:
		break;
	}
	return SCREEN_BANNER_CRASH;
}

/* The largest scale (at most @limit) at which @length glyphs fit in @width x @height. */
static unsigned int fitting_scale(size_t length, uint32_t width, uint32_t height,
				  unsigned int limit)
{
	unsigned int fit = limit;

	while (fit > 1 && (length * console_font.width * fit > width ||
			   console_font.height * fit > height))
		fit--;
	return fit;
}

static void draw_banner_text(const char *text, uint32_t top, unsigned int text_scale,
			     uint32_t color, uint32_t text_color)
{
	size_t length = strlen(text);
	uint32_t text_width = (uint32_t)length * console_font.width * text_scale;
	uint32_t x = text_width < surface.width ? (surface.width - text_width) / 2 : 0;

	for (size_t i = 0; i < length; i++)
		framebuffer_draw_glyph(&surface, &console_font, (unsigned char)text[i],
				       x + (uint32_t)i * console_font.width * text_scale, top,
				       text_scale, text_color, color);
}

static void draw_banner(void)
{
	/* As "# RESULT:" says: a run whose cases all skipped did not fail. */
	const char *word = verdict_result_word(banner_verdict);
	uint32_t top = grid.rows * cell_height;
	uint32_t height = surface.height - top;
	uint32_t color = framebuffer_pixel(&surface, banner_rgb(banner_verdict));
	uint32_t text_color = framebuffer_pixel(&surface, BANNER_TEXT_RGB);
	unsigned int word_scale = fitting_scale(strlen(word), surface.width * 8 / 10,
						height * 6 / 10, 64);
	unsigned int detail_scale = fitting_scale(strlen(banner_detail), surface.width * 9 / 10,
						  height / 5, word_scale / 3 ? word_scale / 3 : 1);
	uint32_t word_height = console_font.height * word_scale;
	uint32_t detail_height = console_font.height * detail_scale;
	uint32_t block = word_height + detail_height + detail_height / 2;
	uint32_t word_top = top + (height > block ? (height - block) / 2 : 0);

	framebuffer_fill(&surface, 0, top, surface.width, height, color);
	draw_banner_text(word, word_top, word_scale, color, text_color);
	draw_banner_text(banner_detail, word_top + word_height + detail_height / 2, detail_scale,
			 color, text_color);
}

void screen_console_show_verdict(enum verdict verdict, const char *detail)
{
	if (!active || broken)
		return;
	banner_verdict = verdict;
	snprintf(banner_detail, sizeof(banner_detail), "%s", detail);
	if (!banner_shown) {
		/* The bottom third becomes the banner; the text scrolls above it. */
		text_grid_set_rows(&grid, full_rows - full_rows / 3);
		banner_shown = true;
	}
	draw_dirty_cells(false);
	draw_banner();
}
