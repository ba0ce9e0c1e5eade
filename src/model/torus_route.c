#include "torus_route.h"

int tdm_torus_links(const tdm_torus *t)
{
    return 2 * TDM_TORUS_MAX_DIMS * tdm_torus_ranks(t);
}

/* Whether SimGrid goes toward higher coordinates from x to y on a ring of n (x != y). */
static int goes_up(int x, int y, int n)
{
    return (y > x && y <= x + n / 2) || (x > n / 2 && (x + n / 2) % n >= y);
}

int tdm_torus_route(const tdm_torus *t, int from, int to, int *links, int max)
{
    int n = 0, stride = 1, at = from;
    for (int d = t->ndims - 1; d >= 0; stride *= t->dims[d], d--) {
        int len = t->dims[d], x = from / stride % len, y = to / stride % len;
        if (x == y)
            continue;
        int up = goes_up(x, y, len), steps = up ? (y - x + len) % len : (x - y + len) % len;
        for (int k = 0; k < steps; k++) {
            int c = at / stride % len, next = up ? (c + 1) % len : (c + len - 1) % len;
            int moved = at + (next - c) * stride, owner = up ? at : moved; /* the link's lower end */
            int link = owner * TDM_TORUS_MAX_DIMS + d;
            if (n < max)
                links[n] = t->bidirectional ? 2 * link + !up : link;
            n++;
            at = moved;
        }
    }
    return n;
}
