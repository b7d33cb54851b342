/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SCREEN_CONSOLE_H
#define TRIGOS_SCREEN_CONSOLE_H
/*
 * The screen console: console output drawn with console_font on the
 * framebuffer the boot loader set up (multiboot2 framebuffer tag, direct
 * RGB at 24 or 32 bits a pixel), and at the end of a run a large coloured
 * banner with the verdict, readable from across the room.  There is no VGA
 * text-mode console: UEFI machines have no VGA text memory.
 */

#include <stdbool.h>

#include <lib/verdict.h>

/* The banner's colours (0xRRGGBB); tools/screencheck looks for exactly these. */
#define SCREEN_BANNER_PASS	0x00a000u
#define SCREEN_BANNER_FAIL	0xd00000u
#define SCREEN_BANNER_CRASH	0xb000b0u

/**
 * screen_console_init - start the screen console on the loader's framebuffer
 *
 * Says in a KTAP note why not when there is none, or it is of a kind that
 * cannot be drawn (indexed colour, EGA text, 16 bits a pixel).  A
 * framebuffer above 4 GiB, which the boot page tables do not reach, starts
 * in screen_console_late_init().
 *
 * Return: true when the screen console is (or will be) in use.
 */
bool screen_console_init(void);

/** screen_console_late_init - after paging_init(): start a deferred screen console */
void screen_console_late_init(void);

/**
 * screen_console_show_verdict - the banner: PASS, FAIL or CRASH on its colour,
 * @detail (e.g. the counts) under it; the text above goes on scrolling
 *
 * Safe in a panic: it takes no lock.  A no-op without a screen console.
 */
void screen_console_show_verdict(enum verdict verdict, const char *detail);

#endif
