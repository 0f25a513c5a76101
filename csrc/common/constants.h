/*
 * dbjson C speedups, shared: integer constants a module exports to Python.
 *
 * Every set of numbers that Python passes to a module or gets back from it (column kinds, ops,
 * flavors, statuses) is written once, as an X-macro list in the module's source:
 *
 *   #define KINDS(X) X(K_NUMBER) X(K_BOOL) X(K_QUOTED)
 *   enum { KINDS(CONST_ENUM) K_COUNT };           K_NUMBER = 0, K_BOOL = 1, ... in list order
 *   static const ModuleConst constants[] = {KINDS(CONST_ENTRY) {NULL, 0}};
 *   ... in PyInit: add_constants(module, constants)   module.K_NUMBER == 0, ...
 *
 * tools/gen_speedups_table.py reads those lists (every "#define NAME(X)" of a csrc/_c*.c) into
 * dbjson/_speedups_table.py, the table Python uses when a module is not built;
 * tests/test_speedups_table.py checks that the table is up to date and equals what the built
 * modules export. A list holds names only (values are their positions), one list per set.
 */
#ifndef DBJSON_COMMON_CONSTANTS_H
#define DBJSON_COMMON_CONSTANTS_H

#include <Python.h>

#define CONST_ENUM(name) name,
#define CONST_ENTRY(name) {#name, name},

typedef struct {
    const char *name;
    long value;
} ModuleConst;

/* Adds every entry up to the {NULL, 0} end as an int attribute of m: 0, or -1 with an exception. */
static inline int add_constants(PyObject *m, const ModuleConst *c)
{
    for (; c->name != NULL; c++)
        if (PyModule_AddIntConstant(m, c->name, c->value) < 0)
            return -1;
    return 0;
}

#endif
