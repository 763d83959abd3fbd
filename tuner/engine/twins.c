/* twins.c -- configurations that are one program (see twins.h). */
#include "engine/twins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CUBIN's bytes and the values of every parameter a manifest
 * expression reads ([launch], [constraints], [args]): two configurations
 * with the same key run the same code with the same launch and
 * arguments. */
uint64_t atune__twin_key(const atune__manifest *m, const atune__config *c,
                         const atune__cubin *cubin)
{
    uint64_t h = atune__fnv1a(cubin->data, cubin->len, ATUNE__FNV_SEED);

    for (int i = 0; i < m->nparams; i++)
        if (atune__manifest_expr_reads(m, m->params[i].name))
            h = atune__fnv1a(&c->v[i], sizeof(c->v[i]), h);
    return h;
}

const atune__twin *atune__twin_find(const atune__twins *sc, uint64_t key)
{
    for (int i = 0; i < sc->ntwins; i++)
        if (sc->twins[i].key == key)
            return &sc->twins[i];
    return NULL;
}

int atune__twin_take(atune__twins *t, uint64_t key, atune__result *res)
{
    const atune__twin *tw = atune__twin_find(t, key);

    if (!tw)
        return 0;
    t->taken++;
    *res = tw->res;
    if (!res->unverified)
        snprintf(res->detail, sizeof(res->detail),
                 "same module and launch as %s", tw->cfg);
    return 1;
}

/* Remembers a verdict that depends only on the code and the launch. */
void atune__twin_add(atune__twins *sc, uint64_t key, const char *cfg,
                     const atune__result *res)
{
    atune__twin *t;

    if (res->status != ATUNE__ST_OK && res->status != ATUNE__ST_WRONG_OUTPUT)
        return;
    if (sc->ntwins == sc->captwins) {
        int cap = sc->captwins ? 2 * sc->captwins : 64;
        if (!(t = realloc(sc->twins, sizeof(*t) * (size_t)cap)))
            return; /* out of memory: measured again, nothing lost */
        sc->twins = t;
        sc->captwins = cap;
    }
    t = &sc->twins[sc->ntwins++];
    t->key = key;
    t->res = *res;
    atune__strlcpy(t->cfg, cfg, sizeof(t->cfg));
}

int64_t atune__twins_free(atune__twins *t)
{
    int64_t taken = t->taken;

    free(t->twins);
    memset(t, 0, sizeof(*t));
    return taken;
}
