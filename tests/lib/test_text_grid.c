// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/text_grid.c. */
#include <harness/test.h>
#include <lib/string.h>
#include <lib/text_grid.h>

#define COLUMNS	8
#define ROWS	3

static struct text_cell cells[COLUMNS * ROWS];

/* Row @row of the grid as a string, trailing blanks kept. */
static const char *row_text(const struct text_grid *grid, unsigned int row)
{
	static char text[COLUMNS + 1];

	for (unsigned int column = 0; column < grid->columns; column++)
		text[column] = (char)grid->cells[row * grid->columns + column].code;
	text[grid->columns] = '\0';
	return text;
}

static void write_text(struct text_grid *grid, const char *text)
{
	text_grid_write(grid, text, strlen(text));
}

static void lines_and_cursor(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	write_text(&grid, "ab\ncd");
	EXPECT_STREQ(row_text(&grid, 0), "ab      ");
	EXPECT_STREQ(row_text(&grid, 1), "cd      ");
	EXPECT_EQ(grid.row, 1u);
	EXPECT_EQ(grid.column, 2u);
	write_text(&grid, "\rX\tY");	/* the tab reaches the line's end: Y wraps */
	EXPECT_STREQ(row_text(&grid, 1), "Xd      ");
	EXPECT_STREQ(row_text(&grid, 2), "Y       ");
	write_text(&grid, "\r\tZ");
	EXPECT_STREQ(row_text(&grid, 1), "Y       ");	/* column 8 of 8: Z wraps and scrolls */
	EXPECT_STREQ(row_text(&grid, 2), "Z       ");
}

static void full_line_wraps_once(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	/* Exactly a row's worth then LF: one line, not a blank one after it. */
	write_text(&grid, "12345678\nnext");
	EXPECT_STREQ(row_text(&grid, 0), "12345678");
	EXPECT_STREQ(row_text(&grid, 1), "next    ");
	write_text(&grid, "9abcdefgh");
	EXPECT_STREQ(row_text(&grid, 1), "next9abc");
	EXPECT_STREQ(row_text(&grid, 2), "defgh   ");
}

static void last_row_scrolls(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	write_text(&grid, "one\ntwo\nthree\nfour");
	EXPECT_STREQ(row_text(&grid, 0), "two     ");
	EXPECT_STREQ(row_text(&grid, 1), "three   ");
	EXPECT_STREQ(row_text(&grid, 2), "four    ");
	EXPECT_EQ(grid.dirty_first, 0u);
	EXPECT_EQ(grid.dirty_last, (unsigned int)ROWS - 1);
}

static void scrolls_several_lines_at_once(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	grid.scroll_lines = 2;
	write_text(&grid, "one\ntwo\nthree\nfour");
	/* "four" needed a row: two went, leaving "three" and two free rows. */
	EXPECT_STREQ(row_text(&grid, 0), "three   ");
	EXPECT_STREQ(row_text(&grid, 1), "four    ");
	EXPECT_STREQ(row_text(&grid, 2), "        ");
	write_text(&grid, "\nfive\nsix");
	EXPECT_STREQ(row_text(&grid, 0), "five    ");
	EXPECT_STREQ(row_text(&grid, 1), "six     ");
	grid.scroll_lines = 9;	/* more than the rows: the screen is cleared */
	write_text(&grid, "\n\nseven");
	EXPECT_STREQ(row_text(&grid, 0), "seven   ");
	EXPECT_STREQ(row_text(&grid, 1), "        ");
}

static void dirty_range_follows_writes(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	text_grid_clean(&grid);
	EXPECT_GT(grid.dirty_first, grid.dirty_last);
	write_text(&grid, "\nx");
	EXPECT_EQ(grid.dirty_first, 1u);
	EXPECT_EQ(grid.dirty_last, 1u);
	text_grid_clean(&grid);
	write_text(&grid, "\n\n");
	EXPECT_EQ(grid.dirty_first, 0u);	/* the second LF scrolled */
}

static void utf8_to_latin1(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	/* e-acute (2 bytes), the euro sign (3 bytes, not Latin-1), a bad byte, 'a'. */
	write_text(&grid, "\xc3\xa9\xe2\x82\xac\xff" "a");
	EXPECT_EQ(grid.cells[0].code, 0xe9);
	EXPECT_EQ(grid.cells[1].code, '?');
	EXPECT_EQ(grid.cells[2].code, '?');
	EXPECT_EQ(grid.cells[3].code, 'a');
	/* A sequence cut by an ASCII byte: '?' then the byte. */
	write_text(&grid, "\xc3Z\x1b");
	EXPECT_EQ(grid.cells[4].code, '?');
	EXPECT_EQ(grid.cells[5].code, 'Z');
	EXPECT_EQ(grid.column, 6u);	/* ESC is not shown */
}

static void colour_is_kept_per_cell(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	grid.color = 3;
	write_text(&grid, "r");
	grid.color = 1;
	write_text(&grid, "g");
	EXPECT_EQ(grid.cells[0].color, 3);
	EXPECT_EQ(grid.cells[1].color, 1);
}

static void fewer_rows_keep_the_cursor_visible(void)
{
	struct text_grid grid;

	text_grid_init(&grid, cells, COLUMNS, ROWS);
	write_text(&grid, "one\ntwo\nthree");
	text_grid_set_rows(&grid, 2);
	EXPECT_EQ(grid.rows, 2u);
	EXPECT_EQ(grid.row, 1u);
	EXPECT_STREQ(row_text(&grid, 0), "two     ");
	EXPECT_STREQ(row_text(&grid, 1), "three   ");
	write_text(&grid, "\nfour");
	EXPECT_STREQ(row_text(&grid, 0), "three   ");
	EXPECT_STREQ(row_text(&grid, 1), "four    ");
	text_grid_set_rows(&grid, 0);	/* ignored */
	EXPECT_EQ(grid.rows, 2u);
}

static const struct test_case lib_text_grid_cases[] = {
	TEST_CASE(lines_and_cursor),
	TEST_CASE(full_line_wraps_once),
	TEST_CASE(last_row_scrolls),
	TEST_CASE(scrolls_several_lines_at_once),
	TEST_CASE(dirty_range_follows_writes),
	TEST_CASE(utf8_to_latin1),
	TEST_CASE(colour_is_kept_per_cell),
	TEST_CASE(fewer_rows_keep_the_cursor_visible),
};
TEST_SUITE(lib_text_grid, lib_text_grid_cases, NULL, NULL);
