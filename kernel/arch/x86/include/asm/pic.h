/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_PIC_H
#define TRIGOS_ASM_PIC_H

/**
 * pic_disable - move the 8259s off the exception vectors and mask them:
 * always after a BIOS boot; after a UEFI boot only where the MADT says
 * the machine has them (PCAT_COMPAT) or there is no MADT to ask
 */
void pic_disable(void);

#endif
