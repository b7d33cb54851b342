// SPDX-License-Identifier: MIT
#include <lib/random.h>

/*
 * SplitMix64 spreads any seed (0 and small numbers included) over the whole
 * state, since xorshift must never hold zero.
 */
static uint64_t splitmix64(uint64_t value)
{
	value += 0x9e3779b97f4a7c15ull;
	value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
	value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
	return value ^ (value >> 31);
}

void random_seed(struct random_state *random, uint64_t seed)
{
	random->state = splitmix64(seed);
	if (random->state == 0)
		random->state = 0x2545f4914f6cdd1dull;
}

uint64_t random_next(struct random_state *random)
{
	uint64_t x = random->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	random->state = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint64_t random_below(struct random_state *random, uint64_t bound)
{
	uint64_t limit, value;

	if (bound == 0)
		return 0;
	/* Reject the top partial block so every result is equally likely. */
	limit = UINT64_MAX - UINT64_MAX % bound;
	do
		value = random_next(random);
	while (value >= limit);
	return value % bound;
}
