// SPDX-License-Identifier: MIT
/*
 * Text grid: cells, cursor, wrapping, scrolling and UTF-8 decoding (RFC 3629)
 * for the screen console.  The font is Latin-1, so U+0000-U+00FF are shown as
 * themselves and anything else as '?'.
 */
#include <lib/text_grid.h>

#include <lib/string.h>

#define TAB_STOP	8

static void mark_rows(struct text_grid *grid, unsigned int first, unsigned int last)
{
	if (first < grid->dirty_first)
		grid->dirty_first = first;
	if (last > grid->dirty_last)
		grid->dirty_last = last;
}

void text_grid_clean(struct text_grid *grid)
{
	grid->dirty_first = grid->rows;
	grid->dirty_last = 0;
}

void text_grid_mark_all(struct text_grid *grid)
{
	grid->dirty_first = 0;
	grid->dirty_last = grid->rows - 1;
}

static void clear_row(struct text_grid *grid, unsigned int row)
{
	struct text_cell *cells = &grid->cells[(size_t)row * grid->columns];

	for (unsigned int column = 0; column < grid->columns; column++)
		cells[column] = (struct text_cell){ ' ', grid->color };
}

void text_grid_init(struct text_grid *grid, struct text_cell *cells, unsigned int columns,
		    unsigned int rows)
{
	grid->cells = cells;
	grid->columns = columns;
	grid->rows = rows;
	grid->column = 0;
	grid->row = 0;
	grid->scroll_lines = 1;
	grid->color = 0;
	grid->pending = 0;
	grid->pending_left = 0;
	for (unsigned int row = 0; row < rows; row++)
		clear_row(grid, row);
	text_grid_mark_all(grid);
}

static void scroll_up(struct text_grid *grid, unsigned int lines)
{
	size_t row_cells = grid->columns;

	if (lines >= grid->rows) {
		for (unsigned int row = 0; row < grid->rows; row++)
			clear_row(grid, row);
	} else {
		memmove(grid->cells, grid->cells + lines * row_cells,
			(grid->rows - lines) * row_cells * sizeof(grid->cells[0]));
		for (unsigned int row = grid->rows - lines; row < grid->rows; row++)
			clear_row(grid, row);
	}
	text_grid_mark_all(grid);
}

static void new_line(struct text_grid *grid)
{
	unsigned int lines = grid->scroll_lines;

	grid->column = 0;
	if (grid->row + 1 < grid->rows) {
		grid->row++;
		return;
	}
	if (lines == 0)
		lines = 1;
	if (lines > grid->rows)
		lines = grid->rows;
	scroll_up(grid, lines);
	grid->row = grid->rows - lines;
}

static void put_code(struct text_grid *grid, uint32_t code)
{
	if (grid->column == grid->columns)
		new_line(grid);
	grid->cells[(size_t)grid->row * grid->columns + grid->column] =
		(struct text_cell){ code <= 0xff ? (uint8_t)code : '?', grid->color };
	mark_rows(grid, grid->row, grid->row);
	grid->column++;
}

static void put_control(struct text_grid *grid, uint8_t byte)
{
	switch (byte) {
	case '\n':
		new_line(grid);
		break;
	case '\r':
		grid->column = 0;
		break;
	case '\t':
		/* Moves without erasing, as terminals do; at most to the line's end. */
		grid->column = (grid->column / TAB_STOP + 1) * TAB_STOP;
		if (grid->column > grid->columns)
			grid->column = grid->columns;
		break;
	default:
		break;	/* bell, escape sequences' ESC and the like: not shown */
	}
}

/* Feed one byte to the UTF-8 decoder; puts what it completes. */
static void put_byte(struct text_grid *grid, uint8_t byte)
{
	if (grid->pending_left) {
		if ((byte & 0xc0) == 0x80) {
			grid->pending = (grid->pending << 6) | (byte & 0x3f);
			if (--grid->pending_left == 0)
				put_code(grid, grid->pending);
			return;
		}
		grid->pending_left = 0;
		put_code(grid, '?');	/* the sequence was cut short */
	}
	if (byte < 0x20 || byte == 0x7f) {
		put_control(grid, byte);
	} else if (byte < 0x80) {
		put_code(grid, byte);
	} else if ((byte & 0xe0) == 0xc0 && byte >= 0xc2) {
		grid->pending = byte & 0x1f;
		grid->pending_left = 1;
	} else if ((byte & 0xf0) == 0xe0) {
		grid->pending = byte & 0x0f;
		grid->pending_left = 2;
	} else if ((byte & 0xf8) == 0xf0 && byte <= 0xf4) {
		grid->pending = byte & 0x07;
		grid->pending_left = 3;
	} else {
		put_code(grid, '?');	/* a stray continuation or an invalid lead byte */
	}
}

void text_grid_write(struct text_grid *grid, const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++)
		put_byte(grid, (uint8_t)text[i]);
}

void text_grid_set_rows(struct text_grid *grid, unsigned int rows)
{
	if (rows == 0 || rows >= grid->rows)
		return;
	if (grid->row >= rows) {
		unsigned int lines = grid->row - rows + 1;

		scroll_up(grid, lines);
		grid->row -= lines;
	}
	grid->rows = rows;
	text_grid_mark_all(grid);
}
