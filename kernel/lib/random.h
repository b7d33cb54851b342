/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_RANDOM_H
#define TRIGOS_LIB_RANDOM_H
/*
 * A small, fast, reproducible pseudo-random stream (SplitMix64 seeding a
 * xorshift64* generator).  Not for cryptography: for seed=N reproducible
 * test and torture runs.
 */
#include <stdint.h>

struct random_state {
	uint64_t state;
};

/** random_seed - start a stream; the same seed always gives the same stream */
void random_seed(struct random_state *random, uint64_t seed);

/** random_next - the next 64 random bits */
uint64_t random_next(struct random_state *random);

/** random_below - a number in [0, bound); @bound 0 gives 0 */
uint64_t random_below(struct random_state *random, uint64_t bound);

#endif
