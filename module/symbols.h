/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel internal the module reaches without an export is resolved in
 * symbols.c, once, at load; nothing else calls kallsyms.
 */
#ifndef _SI_SYMBOLS_H
#define _SI_SYMBOLS_H

int si_symbols_init(void);
unsigned long si_lookup_name(const char *name);
bool si_symbol_callable(unsigned long addr);

#endif /* _SI_SYMBOLS_H */
