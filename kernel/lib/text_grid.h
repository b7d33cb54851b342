/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_TEXT_GRID_H
#define TRIGOS_LIB_TEXT_GRID_H
/*
 * The screen console's text: a grid of character cells with a cursor, fed
 * with console output (UTF-8, lines ending in LF).  It knows nothing of
 * pixels: the screen console draws the cells that changed, which it learns
 * from the dirty row range kept here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct text_cell - a Latin-1 character and a colour index */
struct text_cell {
	uint8_t code;
	uint8_t color;
};

/**
 * struct text_grid - the cells, @columns x @rows, row after row
 * @dirty_first, @dirty_last: rows changed since text_grid_clean(); first >
 *                            last when none did
 */
struct text_grid {
	struct text_cell *cells;
	unsigned int columns, rows;
	unsigned int column, row;	/* the cursor */
	unsigned int scroll_lines;	/* rows one scroll moves (1 after init): moving
					 * several at once redraws the screen less often */
	uint8_t color;			/* for the characters written next */
	uint32_t pending;		/* a UTF-8 sequence being decoded */
	unsigned int pending_left;	/* its continuation bytes still to come */
	unsigned int dirty_first, dirty_last;
};

/** text_grid_init - use @cells (@columns * @rows of them), cleared, cursor home */
void text_grid_init(struct text_grid *grid, struct text_cell *cells, unsigned int columns,
		    unsigned int rows);

/**
 * text_grid_write - put @length bytes of UTF-8 text at the cursor
 *
 * LF ends the line, CR goes back to column 0, TAB moves to the next multiple of 8;
 * a full line wraps; the last row scrolls up.  Code points above U+00FF and
 * malformed bytes become '?'; other control characters are ignored.
 */
void text_grid_write(struct text_grid *grid, const char *text, size_t length);

/**
 * text_grid_set_rows - show only the first @rows rows (1..the initial rows),
 * scrolling up so that the cursor stays on one of them
 */
void text_grid_set_rows(struct text_grid *grid, unsigned int rows);

/** text_grid_clean - forget the dirty range (the caller has drawn it) */
void text_grid_clean(struct text_grid *grid);

/** text_grid_mark_all - everything shown is dirty (e.g. after a redraw was lost) */
void text_grid_mark_all(struct text_grid *grid);

#endif
