/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_PIC_H
#define TRIGOS_ASM_PIC_H

/** pic_disable - move the 8259s off the exception vectors and mask them */
void pic_disable(void);

#endif
