/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_VERSION_H
#define TRIGOS_VERSION_H

#define TRIGOS_VERSION "0.1.0"

#endif
