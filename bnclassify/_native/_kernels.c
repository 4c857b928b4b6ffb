/* One-pass kernels for wide integer tables and object columns (their only caller: the
 * package bnclassify/_native).
 *
 * numpy needs several full-size passes and temporaries for what these do in one
 * read of each cell: the per-column range and value set of an integer block,
 * its cast to column-major codes, the class-conditional counts of many
 * (parent, child) families, and a weight matrix's symmetry. They read any 2-D
 * strided buffer of 1-, 2-, 4- or 8-byte integers (or float64) in this
 * machine's byte order through the buffer protocol (no numpy headers at build
 * time) and release the GIL, so the caller may split the work over threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <math.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

/* The position of the lowest set bit of a nonzero word. */
#if defined(__GNUC__) || defined(__clang__)
#define lowest_bit(x) __builtin_ctzll(x)
#else
static inline int lowest_bit(uint64_t x) {
    int k = 0;
    while (!(x & 1)) x >>= 1, k++;
    return k;
}
#endif

/* -- buffers ------------------------------------------------------------------------------- */

/* Skip a format's byte-order prefix; NULL when the order is not this machine's. */
static const char *native_format(const char *f) {
    const uint16_t one = 1;
    const int little = *(const unsigned char *)&one;
    if (!f) return "B";
    if (*f == '<' && !little) return NULL;
    if ((*f == '>' || *f == '!') && little) return NULL;
    while (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') f++;
    return f;
}

/* The integer type of a buffer: 'b','h','i','q' signed (by size) or their unsigned forms;
 * 0 for anything else (floats, another byte order). */
static int int_kind(const Py_buffer *v, int *is_signed) {
    const char *f = native_format(v->format);
    if (!f) return 0;
    if (f[0] == '\0' || f[1] != '\0') return 0;
    if (strchr("bhilqn", f[0])) *is_signed = 1;
    else if (strchr("BHILQN", f[0])) *is_signed = 0;
    else return 0;
    return (int)v->itemsize;
}

static int get_2d(PyObject *obj, Py_buffer *v, int writable, const char *what) {
    int flags = PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, v, flags) < 0) return -1;
    if (v->ndim != 2) {
        PyErr_Format(PyExc_ValueError, "%s must be 2-D", what);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

static int get_1d(PyObject *obj, Py_buffer *v, int writable, Py_ssize_t itemsize, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, v, flags) < 0) return -1;
    if (v->ndim != 1 || v->itemsize != itemsize) {
        PyErr_Format(PyExc_ValueError, "%s must be 1-D with %zd-byte items", what, itemsize);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* Min and max of 64-bit integers vectorise with AVX2 (not with the SSE2 of every x86-64): where
 * the compiler can, build the hot loops twice and let the loader pick the CPU's version. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* Read cell (r, j) of a strided 2-D integer buffer as int64. */
#define CELL(T, base, s0, s1, r, j) ((int64_t) * (const T *)((base) + (r) * (s0) + (j) * (s1)))

/* -- column_ranges ---------------------------------------------------------------------------- */

/* Per column: smallest and largest value (rows contiguous: a loop the compiler vectorises). */
#define RANGES(T)                                                                              \
    VECTOR_CLONES static void ranges_##T(const char *base, Py_ssize_t n, Py_ssize_t m, Py_ssize_t s0,         \
                           Py_ssize_t s1, int64_t *low, int64_t *high) {                        \
        for (Py_ssize_t j = 0; j < m; j++) {                                                   \
            low[j] = INT64_MAX;                                                                \
            high[j] = INT64_MIN;                                                               \
        }                                                                                      \
        if (s1 == (Py_ssize_t)sizeof(T)) {                                                     \
            for (Py_ssize_t r = 0; r < n; r++) {                                               \
                const T *row = (const T *)(base + r * s0);                                     \
                for (Py_ssize_t j = 0; j < m; j++) {                                           \
                    int64_t v = (int64_t)row[j];                                               \
                    low[j] = v < low[j] ? v : low[j];                                          \
                    high[j] = v > high[j] ? v : high[j];                                       \
                }                                                                              \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        if (s0 == (Py_ssize_t)sizeof(T)) { /* columns contiguous (a DataFrame's own block) */  \
            for (Py_ssize_t j = 0; j < m; j++) {                                               \
                const T *column = (const T *)(base + j * s1);                                  \
                int64_t lo = INT64_MAX, hi = INT64_MIN;                                        \
                for (Py_ssize_t r = 0; r < n; r++) {                                           \
                    int64_t v = (int64_t)column[r];                                            \
                    lo = v < lo ? v : lo;                                                      \
                    hi = v > hi ? v : hi;                                                      \
                }                                                                              \
                low[j] = lo;                                                                   \
                high[j] = hi;                                                                  \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        for (Py_ssize_t j = 0; j < m; j++) {                                                   \
            int64_t lo = INT64_MAX, hi = INT64_MIN;                                            \
            for (Py_ssize_t r = 0; r < n; r++) {                                               \
                int64_t v = CELL(T, base, s0, s1, r, j);                                       \
                lo = v < lo ? v : lo;                                                          \
                hi = v > hi ? v : hi;                                                          \
            }                                                                                  \
            low[j] = lo;                                                                       \
            high[j] = hi;                                                                      \
        }                                                                                      \
    }

/* Per column: the values in [0, 64) as bits, from a table of seen values (plain stores:
 * no chain of read-modify-writes from one cell to the next, unlike OR-ing shifted bits). */
#define BITS(T)                                                                                \
    static void bits_##T(const char *base, Py_ssize_t n, Py_ssize_t m, Py_ssize_t s0,           \
                         Py_ssize_t s1, uint64_t *bits) {                                      \
        unsigned char seen[64];                                                                \
        for (Py_ssize_t j = 0; j < m; j++) {                                                   \
            memset(seen, 0, sizeof(seen));                                                     \
            for (Py_ssize_t r = 0; r < n; r++) {                                               \
                uint64_t v = (uint64_t)CELL(T, base, s0, s1, r, j);                            \
                if (v < 64) seen[v] = 1; /* others: not recorded */                            \
            }                                                                                  \
            uint64_t b = 0;                                                                    \
            for (int v = 0; v < 64; v++) b |= (uint64_t)seen[v] << v;                          \
            bits[j] = b;                                                                       \
        }                                                                                      \
    }

#define FOR_INTS(MACRO) MACRO(int8_t) MACRO(int16_t) MACRO(int32_t) MACRO(int64_t) \
    MACRO(uint8_t) MACRO(uint16_t) MACRO(uint32_t)
FOR_INTS(RANGES)
FOR_INTS(BITS)

/* Call NAME##_T(ARGS) for the integer type of a buffer (is_signed, size). */
#define DISPATCH(NAME, ARGS)                                                                   \
    do {                                                                                       \
        if (is_signed) {                                                                       \
            if (size == 1) NAME##_int8_t ARGS;                                                 \
            else if (size == 2) NAME##_int16_t ARGS;                                           \
            else if (size == 4) NAME##_int32_t ARGS;                                           \
            else NAME##_int64_t ARGS;                                                          \
        } else {                                                                               \
            if (size == 1) NAME##_uint8_t ARGS;                                                \
            else if (size == 2) NAME##_uint16_t ARGS;                                          \
            else NAME##_uint32_t ARGS;                                                         \
        }                                                                                      \
    } while (0)

/* A 2-D integer buffer the kernels read (any but uint64), and 1-D int64 outputs, one per column. */
static int open_block(PyObject *obj, Py_buffer *v, int *is_signed, int *size) {
    if (get_2d(obj, v, 0, "block") < 0) return -1;
    *size = int_kind(v, is_signed);
    if (!*size || (*size == 8 && !*is_signed)) {
        PyErr_SetString(PyExc_TypeError, "block must hold integers (not uint64)");
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

static PyObject *column_ranges(PyObject *self, PyObject *args) {
    PyObject *block_obj, *low_obj, *high_obj;
    if (!PyArg_ParseTuple(args, "OOO", &block_obj, &low_obj, &high_obj)) return NULL;
    Py_buffer block, low, high;
    int is_signed, size;
    PyObject *result = NULL;
    if (open_block(block_obj, &block, &is_signed, &size) < 0) return NULL;
    if (get_1d(low_obj, &low, 1, 8, "low") < 0) goto release_block;
    if (get_1d(high_obj, &high, 1, 8, "high") < 0) goto release_low;
    Py_ssize_t n = block.shape[0], m = block.shape[1], s0 = block.strides[0], s1 = block.strides[1];
    if (low.shape[0] != m || high.shape[0] != m) {
        PyErr_SetString(PyExc_ValueError, "low and high need one item per column");
        goto release_high;
    }
    const char *base = (const char *)block.buf;
    int64_t *lo = (int64_t *)low.buf, *hi = (int64_t *)high.buf;
    Py_BEGIN_ALLOW_THREADS
    DISPATCH(ranges, (base, n, m, s0, s1, lo, hi));
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
release_high:
    PyBuffer_Release(&high);
release_low:
    PyBuffer_Release(&low);
release_block:
    PyBuffer_Release(&block);
    return result;
}

/* Bytes stored column by column: look for each value up to the column's largest with memchr
 * (vectorised by the C library), which finds a value that occurs within the first few rows. */
static void bits_of_byte_columns(const char *base, Py_ssize_t n, Py_ssize_t m, Py_ssize_t s1,
                                 const int64_t *high, uint64_t *bits) {
    for (Py_ssize_t j = 0; j < m; j++) {
        const char *column = base + j * s1;
        uint64_t b = 0;
        for (int64_t v = 0; v <= high[j] && v < 64; v++)
            if (memchr(column, (int)v, (size_t)n)) b |= (uint64_t)1 << v;
        bits[j] = b;
    }
}

static PyObject *value_bits(PyObject *self, PyObject *args) {
    PyObject *block_obj, *bits_obj, *high_obj = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O", &block_obj, &bits_obj, &high_obj)) return NULL;
    Py_buffer block, bits, high;
    int is_signed, size, has_high = 0;
    PyObject *result = NULL;
    if (open_block(block_obj, &block, &is_signed, &size) < 0) return NULL;
    if (get_1d(bits_obj, &bits, 1, 8, "bits") < 0) goto release_block;
    Py_ssize_t n = block.shape[0], m = block.shape[1], s0 = block.strides[0], s1 = block.strides[1];
    if (high_obj != Py_None) {
        if (get_1d(high_obj, &high, 0, 8, "high") < 0) goto release_bits;
        has_high = 1;
    }
    if (bits.shape[0] != m || (has_high && high.shape[0] != m)) {
        PyErr_SetString(PyExc_ValueError, "bits and high need one item per column");
        goto release_high;
    }
    const char *base = (const char *)block.buf;
    uint64_t *out = (uint64_t *)bits.buf;
    Py_BEGIN_ALLOW_THREADS
    if (size == 1 && s0 == 1 && has_high)
        bits_of_byte_columns(base, n, m, s1, (const int64_t *)high.buf, out);
    else
        DISPATCH(bits, (base, n, m, s0, s1, out));
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
release_high:
    if (has_high) PyBuffer_Release(&high);
release_bits:
    PyBuffer_Release(&bits);
release_block:
    PyBuffer_Release(&block);
    return result;
}

/* -- copy_cast ------------------------------------------------------------------------------ */

/* out[r, j] = block[r, j] for any two strided layouts, in row blocks small enough that a
 * transpose (row-major in, column-major out) reuses every cache line it reads. */
#define ROW_BLOCK 16

#define COPY(T, U)                                                                             \
    VECTOR_CLONES static void copy_##U##_##T(const char *in, Py_ssize_t n, Py_ssize_t m,        \
                                             Py_ssize_t s0, Py_ssize_t s1, char *out,           \
                                             Py_ssize_t o0, Py_ssize_t o1) {                    \
        if (s1 == (Py_ssize_t)sizeof(T) && o0 == (Py_ssize_t)sizeof(U) &&                      \
            s0 % (Py_ssize_t)sizeof(T) == 0 && o1 % (Py_ssize_t)sizeof(U) == 0) {               \
            /* rows in, columns out (the usual transpose): plain indices the compiler unrolls */ \
            Py_ssize_t row = s0 / (Py_ssize_t)sizeof(T), column = o1 / (Py_ssize_t)sizeof(U);  \
            const T *x = (const T *)in;                                                        \
            U *y = (U *)out;                                                                   \
            for (Py_ssize_t r0 = 0; r0 < n; r0 += ROW_BLOCK) {                                 \
                Py_ssize_t r1 = r0 + ROW_BLOCK < n ? r0 + ROW_BLOCK : n;                       \
                for (Py_ssize_t j = 0; j < m; j++)                                             \
                    for (Py_ssize_t r = r0; r < r1; r++) y[j * column + r] = (U)x[r * row + j]; \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        for (Py_ssize_t r0 = 0; r0 < n; r0 += ROW_BLOCK) {                                     \
            Py_ssize_t r1 = r0 + ROW_BLOCK < n ? r0 + ROW_BLOCK : n;                           \
            for (Py_ssize_t j = 0; j < m; j++)                                                 \
                for (Py_ssize_t r = r0; r < r1; r++)                                           \
                    *(U *)(out + r * o0 + j * o1) = (U) * (const T *)(in + r * s0 + j * s1);   \
        }                                                                                      \
    }

#define COPY_TO(U) COPY(int8_t, U) COPY(int16_t, U) COPY(int32_t, U) COPY(int64_t, U) \
    COPY(uint8_t, U) COPY(uint16_t, U) COPY(uint32_t, U)
COPY_TO(int8_t)
COPY_TO(int16_t)

static PyObject *copy_cast(PyObject *self, PyObject *args) {
    PyObject *block_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO", &block_obj, &out_obj)) return NULL;
    Py_buffer block, codes;
    int is_signed, size, out_signed = 0;
    PyObject *result = NULL;
    if (open_block(block_obj, &block, &is_signed, &size) < 0) return NULL;
    if (get_2d(out_obj, &codes, 1, "out") < 0) goto release_block;
    int out_size = int_kind(&codes, &out_signed);
    if (!out_signed || (out_size != 1 && out_size != 2) || codes.shape[0] != block.shape[0] ||
        codes.shape[1] != block.shape[1]) {
        PyErr_SetString(PyExc_TypeError, "copy_cast: out must be int8 or int16 of the block's shape");
        goto release_codes;
    }
    const char *in = (const char *)block.buf;
    char *out = (char *)codes.buf;
    Py_ssize_t n = block.shape[0], m = block.shape[1], s0 = block.strides[0], s1 = block.strides[1];
    Py_ssize_t o0 = codes.strides[0], o1 = codes.strides[1];
    Py_BEGIN_ALLOW_THREADS
    if (out_size == 1) DISPATCH(copy_int8_t, (in, n, m, s0, s1, out, o0, o1));
    else DISPATCH(copy_int16_t, (in, n, m, s0, s1, out, o0, o1));
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
release_codes:
    PyBuffer_Release(&codes);
release_block:
    PyBuffer_Release(&block);
    return result;
}

/* -- count_families ---------------------------------------------------------------------------- */

/* flat[y * total + start[e] + parent_code * child_card[e] + child_code] += weight, for every
 * row whose two codes are observed (>= 0), for the edges e0 .. e1 - 1; family e's cells are
 * start[e] .. start[e + 1] - 1 of each class's block of total cells (start has n_edges + 1). */
#define COUNT_ROWS 2048  /* rows per tile: the tile's classes, indices and weights stay in L1 */
#define LANES 4           /* interleaved copies of a family's table (see below) */
#define LOCAL_CELLS 1024  /* largest family table (cells, all classes) counted in local copies */

/* Each family is counted in two loops over a tile of rows: the first computes every row's cell
 * (a missing code sends the row to a spare cell) and vectorises; the second adds the rows up.
 * A run of rows in the same cell would make every increment wait for the previous one's store,
 * so the second loop keeps four copies of the table, one per row modulo 4. */
#define COUNT(T)                                                                               \
    VECTOR_CLONES static int count_##T(const char *codes, Py_ssize_t n, Py_ssize_t s0, Py_ssize_t s1,         \
                         const int64_t *y, const double *w, const int64_t *child,              \
                         const int64_t *parent, const int64_t *child_card,                     \
                         const int64_t *start, int64_t total, int64_t n_classes, Py_ssize_t e0, \
                         Py_ssize_t e1, double *flat) {                                        \
        int32_t klass[COUNT_ROWS], cell[COUNT_ROWS];                                           \
        int32_t counts[LANES * (LOCAL_CELLS + 1)];                                             \
        double sums[LANES * (LOCAL_CELLS + 1)];                                                \
        for (Py_ssize_t r0 = 0; r0 < n; r0 += COUNT_ROWS) {                                    \
            Py_ssize_t rows = r0 + COUNT_ROWS < n ? COUNT_ROWS : n - r0;                       \
            for (Py_ssize_t r = 0; r < rows; r++) {                                            \
                if ((uint64_t)y[r0 + r] >= (uint64_t)n_classes) return -1;                     \
                klass[r] = (int32_t)y[r0 + r];                                                 \
            }                                                                                  \
            const double *tile_w = w ? w + r0 : NULL;                                          \
            for (Py_ssize_t e = e0; e < e1; e++) {                                             \
                const char *c = codes + child[e] * s1 + r0 * s0, *p = codes + parent[e] * s1 + r0 * s0; \
                int32_t card = (int32_t)child_card[e], size = (int32_t)(start[e + 1] - start[e]); \
                int32_t cells = size * (int32_t)n_classes, spare = cells;                       \
                uint32_t largest = 0;                                                          \
                if (cells > LOCAL_CELLS) { /* a large family: straight into flat */            \
                    for (Py_ssize_t r = 0; r < rows; r++) {                                    \
                        int64_t a = (int64_t) * (const T *)(c + r * s0);                       \
                        int64_t b = (int64_t) * (const T *)(p + r * s0);                       \
                        if ((a | b) < 0) continue; /* a missing cell */                        \
                        if (a >= card || b * card + a >= size) return -1;                      \
                        flat[klass[r] * total + start[e] + b * card + a] += w ? tile_w[r] : 1.0; \
                    }                                                                          \
                    continue;                                                                  \
                }                                                                              \
                for (Py_ssize_t r = 0; r < rows; r++) {                                        \
                    int64_t a64 = (int64_t) * (const T *)(c + r * s0);                         \
                    int64_t b64 = (int64_t) * (const T *)(p + r * s0);                         \
                    /* wider codes are clamped, so that none wraps in 32 bits (a code beyond its \
                     * states stays beyond them); bytes and shorts cannot wrap */              \
                    int32_t a = sizeof(T) <= 2 ? (int32_t)a64                                  \
                                               : a64 < 0 ? -1 : (int32_t)(a64 < card ? a64 : card); \
                    int32_t b = sizeof(T) <= 2 ? (int32_t)b64                                  \
                                               : b64 < 0 ? -1 : (int32_t)(b64 < size ? b64 : size); \
                    int32_t f = b * card + a; /* the cell within the class's table */          \
                    int32_t i = (a >= card) | (f >= size) ? spare + 1 : klass[r] * size + f;   \
                    i = (a | b) < 0 ? spare : i;                                               \
                    largest = (uint32_t)i > largest ? (uint32_t)i : largest;                   \
                    cell[r] = i;                                                               \
                }                                                                              \
                if (largest > (uint32_t)spare) return -1; /* a code beyond its states */      \
                int32_t stride = cells + 1;                                                    \
                if (w) {                                                                       \
                    memset(sums, 0, sizeof(double) * LANES * stride);                          \
                    for (Py_ssize_t r = 0; r < rows; r++)                                      \
                        sums[(r & (LANES - 1)) * stride + cell[r]] += tile_w[r];               \
                } else {                                                                       \
                    memset(counts, 0, sizeof(int32_t) * LANES * stride);                       \
                    for (Py_ssize_t r = 0; r < rows; r++)                                      \
                        counts[(r & (LANES - 1)) * stride + cell[r]]++;                        \
                }                                                                              \
                for (int32_t k = 0; k < (int32_t)n_classes; k++)                               \
                    for (int32_t i = 0; i < size; i++) {                                       \
                        double sum = 0.0;                                                      \
                        for (int lane = 0; lane < LANES; lane++)                               \
                            sum += w ? sums[lane * stride + k * size + i]                      \
                                     : (double)counts[lane * stride + k * size + i];           \
                        flat[k * total + start[e] + i] += sum;                                 \
                    }                                                                          \
            }                                                                                  \
        }                                                                                      \
        return 0;                                                                              \
    }

COUNT(int8_t)
COUNT(int16_t)
COUNT(int32_t)
COUNT(int64_t)

/* Unweighted counts of several families at once (a search scoring every candidate parent of a
 * node): one pass over the rows, each row's cell of every family counted in turn, into int32
 * counts of every class's table (counts, zeroed, n_classes * total cells) added to flat at the
 * end. A row's increments fall in different tables, so none waits for the previous one's store
 * (what the lanes of count_T are for), and each row is read once, not once per family. The same
 * checks as count_T: a class out of range, or, where both codes are observed, a code beyond its
 * states, returns -1. */
#define ROW_PASS_FAMILIES 3     /* fewest families counted this way */
#define ROW_PASS_CELLS (1 << 18) /* most cells (all classes) of their int32 counts: 1 MB */
typedef struct { Py_ssize_t child, parent; int64_t card, size, start; } row_family;

/* The int32 counts of the row passes' cells from .. to (every class's table) added to flat. */
static void add_row_counts(double *flat, const int32_t *counts, int64_t from, int64_t to,
                           int64_t total, int64_t n_classes) {
    for (int64_t k = 0; k < n_classes; k++)
        for (int64_t i = from; i < to; i++) flat[k * total + i] += (double)counts[k * total + i];
}

#define COUNT_ROWS_PASS(T)                                                                     \
    static int count_rows_##T(const char *codes, Py_ssize_t n, Py_ssize_t s0, Py_ssize_t s1,   \
                              const int64_t *y, const int64_t *child, const int64_t *parent,   \
                              const int64_t *child_card, const int64_t *start, int64_t total,  \
                              int64_t n_classes, Py_ssize_t e0, Py_ssize_t e1, double *flat,   \
                              int32_t *counts, row_family *fam) {                              \
        Py_ssize_t m = e1 - e0;                                                                \
        for (Py_ssize_t e = 0; e < m; e++) {                                                   \
            fam[e].child = child[e0 + e] * s1;                                                 \
            fam[e].parent = parent[e0 + e] * s1;                                               \
            fam[e].card = child_card[e0 + e];                                                  \
            fam[e].size = start[e0 + e + 1] - start[e0 + e];                                   \
            fam[e].start = start[e0 + e];                                                      \
        }                                                                                      \
        for (Py_ssize_t r = 0; r < n; r++) {                                                   \
            int64_t k = y[r];                                                                  \
            if ((uint64_t)k >= (uint64_t)n_classes) return -1;                                 \
            const char *row = codes + r * s0;                                                  \
            int32_t *table = counts + k * total;                                               \
            for (Py_ssize_t e = 0; e < m; e++) {                                               \
                int64_t a = (int64_t) * (const T *)(row + fam[e].child);                       \
                int64_t b = (int64_t) * (const T *)(row + fam[e].parent);                      \
                if ((a | b) < 0) continue; /* a missing cell */                                \
                /* b beyond the size: no product overflows */                                  \
                if (a >= fam[e].card || b >= fam[e].size) return -1;                           \
                int64_t f = b * fam[e].card + a;                                               \
                if (f >= fam[e].size) return -1;                                               \
                table[fam[e].start + f]++;                                                     \
            }                                                                                  \
        }                                                                                      \
        add_row_counts(flat, counts, start[e0], start[e1], total, n_classes);                   \
        return 0;                                                                              \
    }

COUNT_ROWS_PASS(int8_t)
COUNT_ROWS_PASS(int16_t)
COUNT_ROWS_PASS(int32_t)
COUNT_ROWS_PASS(int64_t)

/* count_rows_T when every family has the same child (a node's candidate parents) and each
 * family's cells are its parent's states times the child's: the child's code read once per
 * row, and each family's cell one code, one compare and one increment. fam[e].size holds the
 * parent's states. */
#define COUNT_ROWS_SHARED(T)                                                                   \
    static int count_shared_##T(const char *codes, Py_ssize_t n, Py_ssize_t s0, Py_ssize_t s1, \
                                const int64_t *y, const int64_t *parent, int64_t child,        \
                                int64_t card, const int64_t *start, int64_t total,             \
                                int64_t n_classes, Py_ssize_t e0, Py_ssize_t e1, double *flat, \
                                int32_t *counts, row_family *fam) {                            \
        Py_ssize_t m = e1 - e0;                                                                \
        for (Py_ssize_t e = 0; e < m; e++) {                                                   \
            fam[e].parent = parent[e0 + e] * s1;                                               \
            fam[e].size = (start[e0 + e + 1] - start[e0 + e]) / card;                          \
            fam[e].start = start[e0 + e];                                                      \
        }                                                                                      \
        for (Py_ssize_t r = 0; r < n; r++) {                                                   \
            int64_t k = y[r];                                                                  \
            if ((uint64_t)k >= (uint64_t)n_classes) return -1;                                 \
            const char *row = codes + r * s0;                                                  \
            int64_t a = (int64_t) * (const T *)(row + child * s1);                             \
            if (a < 0) continue; /* a missing child: no family counts the row */               \
            if (a >= card) { /* beyond its states: wrong where a parent is observed */         \
                for (Py_ssize_t e = 0; e < m; e++)                                             \
                    if (*(const T *)(row + fam[e].parent) >= 0) return -1;                     \
                continue;                                                                      \
            }                                                                                  \
            int32_t *table = counts + k * total + a;                                           \
            for (Py_ssize_t e = 0; e < m; e++) {                                               \
                int64_t b = (int64_t) * (const T *)(row + fam[e].parent);                      \
                if (b < 0) continue;                                                           \
                if (b >= fam[e].size) return -1;                                               \
                table[fam[e].start + b * card]++;                                              \
            }                                                                                  \
        }                                                                                      \
        add_row_counts(flat, counts, start[e0], start[e1], total, n_classes);                   \
        return 0;                                                                              \
    }

COUNT_ROWS_SHARED(int8_t)
COUNT_ROWS_SHARED(int16_t)
COUNT_ROWS_SHARED(int32_t)
COUNT_ROWS_SHARED(int64_t)

/* Whether families e0 .. e1 - 1 have one child and cells of whole rows of its states. */
static int shared_child(const int64_t *child, const int64_t *card, const int64_t *start,
                        Py_ssize_t e0, Py_ssize_t e1) {
    for (Py_ssize_t e = e0; e < e1; e++)
        if (child[e] != child[e0] || card[e] != card[e0] || card[e] < 1 ||
            (start[e + 1] - start[e]) % card[e])
            return 0;
    return 1;
}

static PyObject *count_families(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *y_obj, *w_obj, *child_obj, *parent_obj, *card_obj, *start_obj, *flat_obj;
    long long total, n_classes;
    Py_ssize_t e0, e1;
    if (!PyArg_ParseTuple(args, "OOOOOOOLLOnn", &codes_obj, &y_obj, &w_obj, &child_obj,
                          &parent_obj, &card_obj, &start_obj, &total, &n_classes, &flat_obj,
                          &e0, &e1))
        return NULL;
    Py_buffer b[8];
    int got = 0;
    PyObject *result = NULL;
    if (get_2d(codes_obj, &b[got], 0, "codes") < 0) goto done;
    got++;
    PyObject *objs[6] = {y_obj, child_obj, parent_obj, card_obj, start_obj, flat_obj};
    const char *names[6] = {"y", "child", "parent", "child_card", "start", "flat"};
    for (int k = 0; k < 6; k++) {
        if (get_1d(objs[k], &b[got], k == 5, 8, names[k]) < 0) goto done;
        got++;
    }
    const double *w = NULL;
    if (w_obj != Py_None) {
        if (get_1d(w_obj, &b[got], 0, 8, "weights") < 0) goto done;
        w = (const double *)b[got].buf;
        got++;
    }
    Py_buffer *codes = &b[0];
    Py_ssize_t n = codes->shape[0], m = codes->shape[1], n_edges = b[2].shape[0];
    int is_signed = 0, size = int_kind(codes, &is_signed);
    if (!size || !is_signed || b[1].shape[0] != n || (w && b[7].shape[0] != n) ||
        b[3].shape[0] != n_edges || b[4].shape[0] != n_edges || b[5].shape[0] != n_edges + 1 ||
        b[5].shape[0] < 1 || ((const int64_t *)b[5].buf)[n_edges] != total || total < 0 ||
        n_classes < 1 || b[6].shape[0] != total * n_classes ||
        e0 < 0 || e1 > n_edges || e0 > e1) {
        PyErr_SetString(PyExc_ValueError, "count_families: inconsistent arguments");
        goto done;
    }
    const int64_t *child = (const int64_t *)b[2].buf, *parent = (const int64_t *)b[3].buf;
    for (Py_ssize_t e = e0; e < e1; e++)
        if (child[e] < 0 || child[e] >= m || parent[e] < 0 || parent[e] >= m) {
            PyErr_SetString(PyExc_IndexError, "count_families: a column out of range");
            goto done;
        }
    const char *base = (const char *)codes->buf;
    Py_ssize_t s0 = codes->strides[0], s1 = codes->strides[1];
    const int64_t *y = (const int64_t *)b[1].buf, *card = (const int64_t *)b[4].buf;
    const int64_t *start = (const int64_t *)b[5].buf;
    double *flat = (double *)b[6].buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    int32_t *counts = NULL;
    row_family *fam = NULL;
    if (!w && e1 - e0 >= ROW_PASS_FAMILIES && total * n_classes <= ROW_PASS_CELLS && n < INT32_MAX) {
        counts = (int32_t *)calloc((size_t)(total * n_classes), sizeof(int32_t));
        fam = (row_family *)malloc(sizeof(row_family) * (size_t)(e1 - e0));
        if (!counts || !fam) { free(counts); free(fam); counts = NULL; fam = NULL; }
    }
    if (counts && shared_child(child, card, start, e0, e1)) {
        int64_t c = child[e0], r = card[e0];
        if (size == 1) bad = count_shared_int8_t(base, n, s0, s1, y, parent, c, r, start, total, n_classes, e0, e1, flat, counts, fam);
        else if (size == 2) bad = count_shared_int16_t(base, n, s0, s1, y, parent, c, r, start, total, n_classes, e0, e1, flat, counts, fam);
        else if (size == 4) bad = count_shared_int32_t(base, n, s0, s1, y, parent, c, r, start, total, n_classes, e0, e1, flat, counts, fam);
        else bad = count_shared_int64_t(base, n, s0, s1, y, parent, c, r, start, total, n_classes, e0, e1, flat, counts, fam);
        free(counts);
        free(fam);
    }
    else if (counts) {
        if (size == 1) bad = count_rows_int8_t(base, n, s0, s1, y, child, parent, card, start, total, n_classes, e0, e1, flat, counts, fam);
        else if (size == 2) bad = count_rows_int16_t(base, n, s0, s1, y, child, parent, card, start, total, n_classes, e0, e1, flat, counts, fam);
        else if (size == 4) bad = count_rows_int32_t(base, n, s0, s1, y, child, parent, card, start, total, n_classes, e0, e1, flat, counts, fam);
        else bad = count_rows_int64_t(base, n, s0, s1, y, child, parent, card, start, total, n_classes, e0, e1, flat, counts, fam);
        free(counts);
        free(fam);
    }
    else if (size == 1) bad = count_int8_t(base, n, s0, s1, y, w, child, parent, card, start, total, n_classes, e0, e1, flat);
    else if (size == 2) bad = count_int16_t(base, n, s0, s1, y, w, child, parent, card, start, total, n_classes, e0, e1, flat);
    else if (size == 4) bad = count_int32_t(base, n, s0, s1, y, w, child, parent, card, start, total, n_classes, e0, e1, flat);
    else bad = count_int64_t(base, n, s0, s1, y, w, child, parent, card, start, total, n_classes, e0, e1, flat);
    Py_END_ALLOW_THREADS
    if (bad) { /* the counts so far are in flat: the caller discards them */
        PyErr_SetString(PyExc_ValueError, "count_families: a code or class out of its range");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- is_symmetric ------------------------------------------------------------------------------- */

/* Whether a square float64 matrix equals its transpose exactly, compared in tiles whose mirror
 * images stay in cache (reading a transpose a column at a time misses on every row). */
#define TILE 32

static PyObject *is_symmetric(PyObject *self, PyObject *args) {
    PyObject *matrix_obj;
    if (!PyArg_ParseTuple(args, "O", &matrix_obj)) return NULL;
    Py_buffer v;
    if (get_2d(matrix_obj, &v, 0, "matrix") < 0) return NULL;
    const char *f = native_format(v.format);
    if (v.itemsize != 8 || !f || strcmp(f, "d") != 0 || v.shape[0] != v.shape[1]) {
        PyErr_SetString(PyExc_TypeError, "is_symmetric: a square float64 matrix");
        PyBuffer_Release(&v);
        return NULL;
    }
    Py_ssize_t m = v.shape[0], s0 = v.strides[0], s1 = v.strides[1];
    const char *base = (const char *)v.buf;
    int equal = 1;
    Py_BEGIN_ALLOW_THREADS
    double mirror[TILE * TILE]; /* the tile (j, i) transposed, then compared row by row */
    for (Py_ssize_t i0 = 0; i0 < m && equal; i0 += TILE)
        for (Py_ssize_t j0 = i0; j0 < m && equal; j0 += TILE) {
            Py_ssize_t ni = i0 + TILE < m ? TILE : m - i0, nj = j0 + TILE < m ? TILE : m - j0;
            for (Py_ssize_t j = 0; j < nj; j++) {
                const char *row = base + (j0 + j) * s0 + i0 * s1;
                for (Py_ssize_t i = 0; i < ni; i++) mirror[i * TILE + j] = *(const double *)(row + i * s1);
            }
            for (Py_ssize_t i = 0; i < ni; i++) {
                const char *row = base + (i0 + i) * s0 + j0 * s1;
                int same = 1;
                for (Py_ssize_t j = 0; j < nj; j++) same &= *(const double *)(row + j * s1) == mirror[i * TILE + j];
                equal &= same;
            }
        }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    return PyBool_FromLong(equal);
}

/* -- factorize_objects ------------------------------------------------------------------------ */

/* Codes by object identity for a 1-D object array: cell i gets the index of the first cell
 * holding the same object (same pointer), counted in order of first appearance, and the
 * distinct objects come back as a list. Most cells of a string column repeat a few objects
 * (pandas' CSV reader and numpy's fancy indexing share them), so an open-addressing table keyed
 * by the pointer replaces a hash and an equality test of every cell's value; the caller then
 * factorizes the few distinct objects by value (equal values held by different objects, missing
 * values). When more than half the cells read so far hold new objects (past the first
 * IDENTITY_MIN_OBJECTS), it gives up and returns None: the caller hashes every value instead.
 *
 * The scan compares pointers only (no object is touched: no reference count, no hash), so it
 * runs without the GIL and the columns of a frame are scanned in parallel, as pandas' integer
 * hash tables are. The distinct objects are then read again under the GIL from the cells where
 * each was first seen; a cell that no longer holds its object (the array was written to by
 * another thread meanwhile) makes it return None, as giving up does. */
static inline size_t pointer_slot(const void *p, size_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)p >> 4; /* objects are 16-byte aligned */
    h *= 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 32) & mask;
}

static int grow_pointers(PyObject ***keys, int64_t **vals, size_t *mask) {
    size_t old = *mask + 1, size = old * 2, m = size - 1;
    PyObject **k = (PyObject **)calloc(size, sizeof(PyObject *));
    int64_t *v = (int64_t *)malloc(size * sizeof(int64_t));
    if (!k || !v) { free(k); free(v); return -1; }
    for (size_t i = 0; i < old; i++) {
        PyObject *key = (*keys)[i];
        if (!key) continue;
        size_t s = pointer_slot(key, m);
        while (k[s]) s = (s + 1) & m;
        k[s] = key;
        v[s] = (*vals)[i];
    }
    free(*keys);
    free(*vals);
    *keys = k, *vals = v, *mask = m;
    return 0;
}

/* Distinct objects seen before factorize_objects may give up (see there). */
#define IDENTITY_MIN_OBJECTS 4096

/* The scan of factorize_objects, without the GIL: 0 done, 1 gave up, -1 out of memory. On 0,
 * (*objects)[k] is the k-th distinct object, first seen in cell (*first)[k], k < *count. */
static int scan_identities(const char *base, Py_ssize_t n, Py_ssize_t s0, int64_t *codes,
                           PyObject ***objects, Py_ssize_t **first, int64_t *count_out) {
    size_t mask = 63, cap = 64;
    PyObject **keys = (PyObject **)calloc(mask + 1, sizeof(PyObject *));
    int64_t *vals = (int64_t *)malloc((mask + 1) * sizeof(int64_t));
    PyObject **seen = (PyObject **)malloc(cap * sizeof(PyObject *));
    Py_ssize_t *where = (Py_ssize_t *)malloc(cap * sizeof(Py_ssize_t));
    int status = 0;
    int64_t count = 0;
    if (!keys || !vals || !seen || !where) { status = -1; goto done; }
    PyObject *last = NULL; /* runs of one object skip the table */
    int64_t last_code = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = *(PyObject *const *)(base + i * s0);
        if (!o) o = Py_None; /* an uninitialised cell of np.empty(object) reads as None */
        if (o == last) { codes[i] = last_code; continue; }
        size_t s = pointer_slot(o, mask);
        while (keys[s] && keys[s] != o) s = (s + 1) & mask;
        if (!keys[s]) {
            if (count >= IDENTITY_MIN_OBJECTS && 2 * count > i) {
                /* most cells are new objects (e.g. strings made one per cell): the table would
                 * only add work to the caller's hashing of every value */
                status = 1;
                goto done;
            }
            if ((size_t)count == cap) {
                cap *= 2;
                PyObject **more_seen = (PyObject **)realloc(seen, cap * sizeof(PyObject *));
                if (more_seen) seen = more_seen;
                Py_ssize_t *more_where = (Py_ssize_t *)realloc(where, cap * sizeof(Py_ssize_t));
                if (more_where) where = more_where;
                if (!more_seen || !more_where) { status = -1; goto done; }
            }
            seen[count] = o, where[count] = i;
            keys[s] = o;
            vals[s] = count++;
            if ((size_t)count * 2 > mask + 1) {
                if (grow_pointers(&keys, &vals, &mask) < 0) { status = -1; goto done; }
                s = pointer_slot(o, mask);
                while (keys[s] != o) s = (s + 1) & mask;
            }
        }
        last = o, last_code = vals[s];
        codes[i] = last_code;
    }
done:
    free(keys); free(vals);
    if (status != 0) { free(seen); free(where); seen = NULL, where = NULL; }
    *objects = seen, *first = where, *count_out = count;
    return status;
}

static PyObject *factorize_objects(PyObject *self, PyObject *args) {
    PyObject *values_obj, *codes_obj;
    if (!PyArg_ParseTuple(args, "OO", &values_obj, &codes_obj)) return NULL;
    Py_buffer v, c;
    if (PyObject_GetBuffer(values_obj, &v, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    const char *f = native_format(v.format);
    if (v.ndim != 1 || v.itemsize != sizeof(PyObject *) || !f || strcmp(f, "O") != 0) {
        PyErr_SetString(PyExc_TypeError, "factorize_objects: values must be a 1-D object array");
        PyBuffer_Release(&v);
        return NULL;
    }
    if (get_1d(codes_obj, &c, 1, 8, "codes") < 0) { PyBuffer_Release(&v); return NULL; }
    Py_ssize_t n = v.shape[0], s0 = v.strides[0];
    if (c.shape[0] != n) {
        PyErr_SetString(PyExc_ValueError, "factorize_objects: codes must have one item per value");
        PyBuffer_Release(&v); PyBuffer_Release(&c);
        return NULL;
    }
    const char *base = (const char *)v.buf;
    PyObject **objects = NULL;
    Py_ssize_t *first = NULL;
    int64_t count = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = scan_identities(base, n, s0, (int64_t *)c.buf, &objects, &first, &count);
    Py_END_ALLOW_THREADS
    PyObject *distinct = NULL;
    if (status < 0) { PyErr_NoMemory(); goto end; }
    if (status == 0 && (distinct = PyList_New((Py_ssize_t)count))) {
        for (int64_t k = 0; k < count; k++) {
            PyObject *o = *(PyObject *const *)(base + first[k] * s0);
            if (!o) o = Py_None;
            if (o != objects[k]) { Py_CLEAR(distinct); status = 1; break; } /* written meanwhile */
            Py_INCREF(o);
            PyList_SET_ITEM(distinct, (Py_ssize_t)k, o);
        }
    }
    if (status == 1) { distinct = Py_None; Py_INCREF(Py_None); }
end:
    free(objects); free(first);
    PyBuffer_Release(&v); PyBuffer_Release(&c);
    return distinct;
}

/* -- factorize_object_columns ----------------------------------------------------------------- */

/* The most distinct objects of a column factorize_object_columns codes (its codes are int8). */
#define OBJECT_MAX_CODES 127

/* One column's identity scan into int8 indices (out, step apart): the number of distinct objects
 * (their pointers and first cells into seen and where), or -1 when there are more than
 * OBJECT_MAX_CODES. Pointers only, so without the GIL (see scan_identities). */
static int scan_column_identities(const char *base, Py_ssize_t n, Py_ssize_t s0, char *out,
                                  Py_ssize_t step, PyObject **seen, Py_ssize_t *where) {
    PyObject *keys[256] = {NULL};
    int8_t vals[256];
    int count = 0;
    PyObject *last = NULL;
    int8_t last_code = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = *(PyObject *const *)(base + i * s0);
        if (!o) o = Py_None;
        if (o != last) {
            size_t s = pointer_slot(o, 255);
            while (keys[s] && keys[s] != o) s = (s + 1) & 255;
            if (!keys[s]) {
                if (count == OBJECT_MAX_CODES) return -1;
                keys[s] = o, vals[s] = (int8_t)count;
                seen[count] = o, where[count] = i;
                count++;
            }
            last = o, last_code = vals[s];
        }
        *(int8_t *)(out + i * step) = last_code;
    }
    return count;
}

/* factorize_object_columns(values, out): per column of a 2-D object array, out[:, j] (int8) =
 * the index of each cell's object among the column's distinct objects (by identity, first
 * appearance first); returns each column's distinct objects as a list, or None for a column of
 * more than OBJECT_MAX_CODES distinct objects (or written to meanwhile). The scan runs without the
 * GIL; the caller factorizes the few distinct objects by value and remaps (remap_codes). */
static PyObject *factorize_object_columns(PyObject *self, PyObject *args) {
    PyObject *values_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO", &values_obj, &out_obj)) return NULL;
    Py_buffer v, out;
    if (get_2d(values_obj, &v, 0, "values") < 0) return NULL;
    const char *f = native_format(v.format);
    if (v.itemsize != sizeof(PyObject *) || !f || strcmp(f, "O") != 0) {
        PyErr_SetString(PyExc_TypeError, "factorize_object_columns: values must be an object array");
        PyBuffer_Release(&v);
        return NULL;
    }
    if (get_2d(out_obj, &out, 1, "out") < 0) { PyBuffer_Release(&v); return NULL; }
    int out_signed = 0;
    PyObject *result = NULL;
    Py_ssize_t n = v.shape[0], k = v.shape[1];
    PyObject **seen = NULL;
    Py_ssize_t *where = NULL;
    int *counts = NULL;
    if (int_kind(&out, &out_signed) != 1 || !out_signed || out.shape[0] != n || out.shape[1] != k) {
        PyErr_SetString(PyExc_ValueError, "factorize_object_columns: out must be int8, values' shape");
        goto done;
    }
    size_t cells = (size_t)(k ? k : 1) * OBJECT_MAX_CODES;
    seen = (PyObject **)malloc(cells * sizeof(PyObject *));
    where = (Py_ssize_t *)malloc(cells * sizeof(Py_ssize_t));
    counts = (int *)malloc((size_t)(k ? k : 1) * sizeof(int));
    if (!seen || !where || !counts) { PyErr_NoMemory(); goto done; }
    const char *base = (const char *)v.buf;
    char *obase = (char *)out.buf;
    Py_ssize_t s0 = v.strides[0], s1 = v.strides[1], o0 = out.strides[0], o1 = out.strides[1];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < k; j++)
        counts[j] = scan_column_identities(base + j * s1, n, s0, obase + j * o1, o0,
                                           seen + j * OBJECT_MAX_CODES, where + j * OBJECT_MAX_CODES);
    Py_END_ALLOW_THREADS
    result = PyList_New(k);
    for (Py_ssize_t j = 0; result && j < k; j++) {
        PyObject *distinct = NULL;
        if (counts[j] >= 0 && (distinct = PyList_New(counts[j]))) {
            for (int c = 0; c < counts[j]; c++) {
                PyObject *o = *(PyObject *const *)(base + where[j * OBJECT_MAX_CODES + c] * s0 + j * s1);
                if (!o) o = Py_None;
                if (o != seen[j * OBJECT_MAX_CODES + c]) { Py_CLEAR(distinct); break; } /* written */
                Py_INCREF(o);
                PyList_SET_ITEM(distinct, c, o);
            }
        }
        if (!distinct) {
            if (PyErr_Occurred()) { Py_CLEAR(result); break; }
            distinct = Py_None;
            Py_INCREF(Py_None);
        }
        PyList_SET_ITEM(result, j, distinct);
    }
done:
    free(seen); free(where); free(counts);
    PyBuffer_Release(&v); PyBuffer_Release(&out);
    return result;
}

/* remap_codes(codes, tables): codes[i, j] = tables[j, codes[i, j]] in place, for int8 codes in
 * [0, 128) and an int8 table of 128 entries per column. */
static PyObject *remap_codes(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *tables_obj;
    if (!PyArg_ParseTuple(args, "OO", &codes_obj, &tables_obj)) return NULL;
    Py_buffer c, t;
    if (get_2d(codes_obj, &c, 1, "codes") < 0) return NULL;
    if (get_2d(tables_obj, &t, 0, "tables") < 0) { PyBuffer_Release(&c); return NULL; }
    int cs = 0, ts = 0;
    if (int_kind(&c, &cs) != 1 || !cs || int_kind(&t, &ts) != 1 || !ts || t.shape[0] != c.shape[1] ||
        t.shape[1] != 128) {
        PyErr_SetString(PyExc_ValueError, "remap_codes: int8 codes and an int8 table of 128 per column");
        PyBuffer_Release(&c); PyBuffer_Release(&t);
        return NULL;
    }
    Py_ssize_t n = c.shape[0], k = c.shape[1];
    char *cb = (char *)c.buf;
    const char *tb = (const char *)t.buf;
    Py_ssize_t c0 = c.strides[0], c1 = c.strides[1], t0 = t.strides[0], t1 = t.strides[1];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < k; j++) {
        int8_t table[128];
        for (int r = 0; r < 128; r++) table[r] = *(const int8_t *)(tb + j * t0 + r * t1);
        char *col = cb + j * c1;
        for (Py_ssize_t i = 0; i < n; i++) {
            int8_t *cell = (int8_t *)(col + i * c0);
            *cell = table[(uint8_t)*cell & 127];
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&c); PyBuffer_Release(&t);
    Py_RETURN_NONE;
}

/* -- hdp_run ------------------------------------------------------------------------------------ */

/* The Gibbs sampler of bnclassify/parameters/hdp.py over the table counts of hierarchical
 * Dirichlet process trees (see hdp_run in _native/smoothing.py, which holds a Python version that must
 * give the same numbers: the arithmetic is written in the same order there and here, and no
 * multiply-add may be fused, since an FMA rounds once where Python rounds twice). */
#if defined(__clang__)
#define EXACT_FP _Pragma("clang fp contract(off)")
#define EXACT_FUNCTION
#elif defined(__GNUC__)
#define EXACT_FP
#define EXACT_FUNCTION __attribute__((optimize("fp-contract=off")))
#else
#define EXACT_FP
#define EXACT_FUNCTION
#endif

#include <math.h>

/* The widest window: 2 * window + 1 weights on the stack. */
#define HDP_MAX_WINDOW 64

typedef struct {
    const int64_t *active, *active_node, *parent, *start, *group, *record, *leaves, *sampled;
    const int64_t *row_of, *tree_active, *tree_record, *tree_leaves, *tree_sampled, *tree_groups;
    int64_t *node_n, *node_t, *cell_n, *cell_t, *position, *need;
    double *conc, *log_conc, *p, *acc, *round_acc;
    const double *stirling, *columns;
    uint64_t *rng;
    int64_t n_row_of, table_rows, table_cols, dense_rows;
    int64_t n_iter, burn_in, window, per_round;
    double prior_shape, prior_rate, max_conc, log_q_floor;
    double *rate, *shape;
} hdp_state;

/* xoshiro256** (Blackman and Vigna), as _native._Xoshiro. */
static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(uint64_t *s) {
    const uint64_t result = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

static inline double rng_uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

static inline double rng_open_uniform(uint64_t *s) {
    return ((double)(rng_next(s) >> 11) + 0.5) * 0x1.0p-53;
}

EXACT_FUNCTION static double rng_normal(uint64_t *s) {
    EXACT_FP
    for (;;) {
        const double u = 2.0 * rng_uniform(s) - 1.0;
        const double v = 2.0 * rng_uniform(s) - 1.0;
        const double r = u * u + v * v;
        if (0.0 < r && r < 1.0) return u * sqrt(-2.0 * log(r) / r);
    }
}

/* A Gamma(shape, 1) draw: Marsaglia and Tsang, boosted below shape 1. */
EXACT_FUNCTION static double rng_gamma(uint64_t *s, double shape) {
    EXACT_FP
    if (shape < 1.0) {
        const double boosted = rng_gamma(s, shape + 1.0);
        return boosted * pow(rng_open_uniform(s), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        const double x = rng_normal(s);
        double v = 1.0 + c * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        const double u = rng_open_uniform(s);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v;
    }
}

/* log S(n, t) from the table, or NULL when row n is not in it. */
static inline const double *stirling_row(const hdp_state *h, int64_t n) {
    if (n < 0 || n >= h->n_row_of) return NULL;
    const int64_t r = h->row_of[n];
    if (r < 0 || r >= h->table_rows) return NULL;
    return h->stirling + r * h->table_cols;
}

/* Draw the table count of one active cell; 1 (need set) when the table lacks a number. */
EXACT_FUNCTION static int hdp_draw(hdp_state *h, uint64_t *s, int64_t cell, int64_t node) {
    EXACT_FP
    const int64_t n_k = h->cell_n[cell];
    if (n_k < 2) return 0;
    const int64_t up = h->parent[node];
    const int64_t cell_up = h->start[up] + (cell - h->start[node]);
    const int64_t t_k = h->cell_t[cell], n_up = h->cell_n[cell_up], t_up = h->cell_t[cell_up];
    int64_t lo = t_k - h->window, hi = t_k + h->window;
    if (lo < 1) lo = 1;
    if (lo < t_k + t_up - n_up) lo = t_k + t_up - n_up;
    if (hi > n_k) hi = n_k;
    if (lo >= hi) return 0;
    const double *own = stirling_row(h, n_k);
    if (!own) { h->need[0] = n_k, h->need[1] = 0; return 1; }
    if (hi >= h->table_cols || t_up >= h->table_cols) {
        h->need[0] = n_k, h->need[1] = hi > t_up ? hi : t_up;
        return 1;
    }
    const double log_a = h->log_conc[h->group[node]], a_up = h->conc[h->group[up]];
    const int64_t total_up = h->node_n[up], size = hi - lo + 1;
    const double *above = h->columns + t_up * h->dense_rows; /* log S(., t_up) */
    double exponent[2 * HDP_MAX_WINDOW + 1], factor[2 * HDP_MAX_WINDOW + 1];
    double best = -INFINITY;
    for (int64_t j = 0; j < size; j++) {
        const int64_t v = lo + j, m = n_up + v - t_k;
        if (m >= h->dense_rows) { h->need[0] = m, h->need[1] = 0; return 1; }
        factor[j] = a_up + (double)(total_up + v - 1 - t_k); /* (a_up)_N grows by it at v */
        const double e = own[v] + (double)v * log_a + above[m];
        if (e > best) best = e;
        exponent[j] = e;
    }
    /* weight_j = exp(e_j - best) / prod_{i <= j} factor_i, times prod over the whole window:
     * the rising factorial's ratio as a product of the factors after j (no division) */
    double suffix = 1.0;
    for (int64_t j = size - 1; j >= 0; j--) {
        exponent[j] = exp(exponent[j] - best) * suffix;
        suffix *= factor[j];
    }
    double mass = 0.0;
    for (int64_t j = 0; j < size; j++) mass += exponent[j];
    const double target = rng_uniform(s) * mass;
    int64_t chosen = lo + size - 1;
    double cumulative = 0.0;
    for (int64_t j = 0; j < size; j++) {
        cumulative += exponent[j];
        if (target < cumulative) {
            chosen = lo + j;
            break;
        }
    }
    const int64_t step = chosen - t_k;
    if (step) {
        h->cell_t[cell] = chosen;
        h->node_t[node] += step;
        h->cell_n[cell_up] += step;
        h->node_n[up] += step;
    }
    return 0;
}

/* The posterior mean of every cell of an inner node, added to the sums. */
EXACT_FUNCTION static void hdp_record(hdp_state *h, int64_t node) {
    EXACT_FP
    const double a = h->conc[h->group[node]];
    const int64_t begin = h->start[node], up = h->parent[node];
    const int64_t size = h->start[node + 1] - begin;
    const double denominator = (double)h->node_n[node] + a;
    for (int64_t j = 0; j < size; j++) {
        const int64_t cell = begin + j;
        const double above = up < 0 ? 1.0 / (double)size : h->p[h->start[up] + j];
        const double value = ((double)h->cell_n[cell] + a * above) / denominator;
        h->p[cell] = value;
        h->acc[cell] += value;
        h->round_acc[cell] += value;
    }
}

/* Each node of a tree whose counts stay put (every leaf among them) adds its means over the
 * round's recorded sweeps, which follow from its parent's sums (parents first; a root's parent
 * is the uniform distribution); then the round's sums of the moving nodes start again. */
EXACT_FUNCTION static void hdp_still_means(hdp_state *h, int64_t tree, int64_t recorded) {
    EXACT_FP
    for (int64_t i = h->tree_leaves[tree]; i < h->tree_leaves[tree + 1]; i++) {
        const int64_t node = h->leaves[i], begin = h->start[node], up = h->parent[node];
        const int64_t size = h->start[node + 1] - begin;
        const double a = h->conc[h->group[node]];
        const double denominator = (double)h->node_n[node] + a;
        for (int64_t j = 0; j < size; j++) {
            const int64_t cell = begin + j;
            const double above =
                up < 0 ? (double)recorded / (double)size : h->round_acc[h->start[up] + j];
            const double value = ((double)recorded * (double)h->cell_n[cell] + a * above) / denominator;
            h->round_acc[cell] = value;
            h->acc[cell] += value;
        }
    }
    for (int64_t i = h->tree_record[tree]; i < h->tree_record[tree + 1]; i++) {
        const int64_t node = h->record[i];
        for (int64_t cell = h->start[node]; cell < h->start[node + 1]; cell++)
            h->round_acc[cell] = 0.0;
    }
}

/* A tree's tied concentrations: the auxiliary-variable step (_native._draw_concentrations). */
EXACT_FUNCTION static void hdp_concentrations(hdp_state *h, uint64_t *s, int64_t tree) {
    EXACT_FP
    const int64_t g0 = h->tree_groups[tree], g1 = h->tree_groups[tree + 1];
    for (int64_t g = g0; g < g1; g++) h->rate[g] = h->prior_rate, h->shape[g] = h->prior_shape;
    for (int64_t i = h->tree_sampled[tree]; i < h->tree_sampled[tree + 1]; i++) {
        const int64_t node = h->sampled[i], g = h->group[node];
        const double x = rng_gamma(s, h->conc[g]);
        const double y = rng_gamma(s, (double)h->node_n[node]);
        double log_q = h->log_q_floor;
        if (x > 0.0) {
            log_q = log(x) - log(x + y);
            if (log_q < h->log_q_floor) log_q = h->log_q_floor;
        }
        h->rate[g] -= log_q;
        h->shape[g] += (double)h->node_t[node];
    }
    for (int64_t g = g0; g < g1; g++) {
        double value = rng_gamma(s, h->shape[g]) / h->rate[g];
        if (value > h->max_conc) value = h->max_conc;
        if (value < 1e-300) value = 1e-300;
        h->conc[g] = value;
        h->log_conc[g] = log(value);
    }
}

/* Run (or resume) the trees tree_lo .. tree_hi - 1 one after the other. */
static int hdp_loop(hdp_state *h, int64_t tree_lo, int64_t tree_hi) {
    for (int64_t tree = tree_lo; tree < tree_hi; tree++) {
        uint64_t *s = h->rng + 4 * tree;
        const int64_t begin = h->tree_active[tree], end = h->tree_active[tree + 1];
        int64_t sweep = h->position[2 * tree], resume = h->position[2 * tree + 1];
        for (; sweep < h->n_iter; sweep++, resume = 0) {
            for (int64_t k = begin + resume; k < end; k++)
                if (hdp_draw(h, s, h->active[k], h->active_node[k])) {
                    h->position[2 * tree] = sweep, h->position[2 * tree + 1] = k - begin;
                    return 1;
                }
            if (sweep >= h->burn_in)
                for (int64_t i = h->tree_record[tree]; i < h->tree_record[tree + 1]; i++)
                    hdp_record(h, h->record[i]);
            if ((sweep + 1) % h->per_round == 0 || sweep + 1 == h->n_iter) {
                const int64_t round_start = sweep - sweep % h->per_round;
                const int64_t recorded =
                    sweep + 1 - (round_start > h->burn_in ? round_start : h->burn_in);
                if (recorded > 0) hdp_still_means(h, tree, recorded);
                if (sweep + 1 < h->n_iter) hdp_concentrations(h, s, tree);
            }
        }
        h->position[2 * tree] = h->n_iter, h->position[2 * tree + 1] = 0;
    }
    return 0;
}

static int in_range(const int64_t *a, int64_t n, int64_t lo, int64_t hi) {
    for (int64_t i = 0; i < n; i++)
        if (a[i] < lo || a[i] >= hi) return 0;
    return 1;
}

/* A tree's pointers into a list: non-decreasing from 0 to the list's length. */
static int pointers(const int64_t *ptr, int64_t n_trees, int64_t length) {
    if (ptr[0] != 0 || ptr[n_trees] != length) return 0;
    for (int64_t i = 0; i < n_trees; i++)
        if (ptr[i + 1] < ptr[i]) return 0;
    return 1;
}

/* Whether every index the sampler follows stays inside its array (checked before it runs). */
static int hdp_consistent(const hdp_state *h, int64_t n_nodes, int64_t n_cells, int64_t n_groups,
                          int64_t n_trees, const int64_t *sizes) {
    /* sizes: active, record, leaves, sampled */
    if (h->n_iter < 0 || h->burn_in < 0 || h->window < 0 || h->window > HDP_MAX_WINDOW ||
        h->per_round < 1 || h->table_cols < 1)
        return 0;
    if (h->start[0] != 0 || h->start[n_nodes] != n_cells) return 0;
    for (int64_t j = 0; j < n_nodes; j++) {
        const int64_t up = h->parent[j], size = h->start[j + 1] - h->start[j];
        if (size < 1 || up < -1 || up >= n_nodes || h->group[j] < 0 || h->group[j] >= n_groups)
            return 0;
        if (up >= 0 && h->start[up + 1] - h->start[up] != size) return 0;
    }
    if (!pointers(h->tree_active, n_trees, sizes[0]) || !pointers(h->tree_record, n_trees, sizes[1]) ||
        !pointers(h->tree_leaves, n_trees, sizes[2]) || !pointers(h->tree_sampled, n_trees, sizes[3]) ||
        !in_range(h->tree_groups, n_trees + 1, 0, n_groups + 1))
        return 0;
    for (int64_t i = 0; i < n_trees; i++) {
        if (h->tree_groups[i + 1] < h->tree_groups[i]) return 0;
        const int64_t sweep = h->position[2 * i], k = h->position[2 * i + 1];
        if (sweep < 0 || k < 0 || k > h->tree_active[i + 1] - h->tree_active[i]) return 0;
    }
    for (int64_t k = 0; k < sizes[0]; k++) {
        const int64_t cell = h->active[k], node = h->active_node[k];
        if (node < 0 || node >= n_nodes || h->parent[node] < 0) return 0;
        if (cell < h->start[node] || cell >= h->start[node + 1]) return 0;
    }
    if (!in_range(h->record, sizes[1], 0, n_nodes) || !in_range(h->leaves, sizes[2], 0, n_nodes) ||
        !in_range(h->sampled, sizes[3], 0, n_nodes))
        return 0;
    for (int64_t c = 0; c < n_cells; c++)
        if (h->cell_n[c] < 0 || h->cell_t[c] < 0 || h->cell_t[c] > h->cell_n[c]) return 0;
    return 1;
}

static PyObject *hdp_run(PyObject *self, PyObject *args) {
    enum { N_BUFFERS = 28 };
    PyObject *o[N_BUFFERS];
    long long tree_lo, tree_hi, n_iter, burn_in, window, per_round;
    double prior_shape, prior_rate, max_conc, log_q_floor;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOOOOOOOOOOOLLLLLLdddd", &o[0], &o[1], &o[2],
                          &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12],
                          &o[13], &o[14], &o[15], &o[16], &o[17], &o[18], &o[19], &o[20], &o[21],
                          &o[22], &o[23], &o[24], &o[25], &o[26], &o[27], &tree_lo, &tree_hi, &n_iter,
                          &burn_in, &window, &per_round, &prior_shape, &prior_rate, &max_conc,
                          &log_q_floor))
        return NULL;
    static const char *names[N_BUFFERS] = {
        "active", "active_node", "parent", "start", "group", "node_n", "node_t", "cell_n",
        "cell_t", "record", "leaves", "sampled", "row_of", "position", "tree_active",
        "tree_record", "tree_leaves", "tree_sampled", "tree_groups", "concentration",
        "log_concentration", "stirling", "columns", "p", "acc", "round_acc", "rng", "need"};
    static const int writable[N_BUFFERS] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0,
                                            0, 1, 1, 0, 0, 1, 1, 1, 1, 1};
    Py_buffer b[N_BUFFERS];
    int got = 0;
    PyObject *result = NULL;
    double *scratch = NULL;
    for (; got < N_BUFFERS; got++) {
        if (got == 21 || got == 22) { /* the tables: 2-D, C-contiguous float64 */
            if (PyObject_GetBuffer(o[got], &b[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
                goto done;
            const char *f = native_format(b[got].format);
            if (b[got].ndim != 2 || b[got].itemsize != 8 || !f || strcmp(f, "d") != 0) {
                PyErr_Format(PyExc_ValueError, "hdp_run: %s must be 2-D float64", names[got]);
                got++;
                goto done;
            }
            continue;
        }
        if (get_1d(o[got], &b[got], writable[got], 8, names[got]) < 0) goto done;
    }
    hdp_state h;
    h.active = b[0].buf, h.active_node = b[1].buf, h.parent = b[2].buf, h.start = b[3].buf;
    h.group = b[4].buf, h.node_n = b[5].buf, h.node_t = b[6].buf, h.cell_n = b[7].buf;
    h.cell_t = b[8].buf, h.record = b[9].buf, h.leaves = b[10].buf, h.sampled = b[11].buf;
    h.row_of = b[12].buf, h.position = b[13].buf, h.tree_active = b[14].buf;
    h.tree_record = b[15].buf, h.tree_leaves = b[16].buf, h.tree_sampled = b[17].buf;
    h.tree_groups = b[18].buf, h.conc = b[19].buf, h.log_conc = b[20].buf;
    h.stirling = b[21].buf, h.columns = b[22].buf, h.p = b[23].buf, h.acc = b[24].buf;
    h.round_acc = b[25].buf, h.rng = b[26].buf, h.need = b[27].buf;
    h.n_row_of = b[12].shape[0], h.table_rows = b[21].shape[0], h.table_cols = b[21].shape[1];
    h.dense_rows = b[22].shape[1];
    h.n_iter = n_iter, h.burn_in = burn_in, h.window = window, h.per_round = per_round;
    h.prior_shape = prior_shape, h.prior_rate = prior_rate, h.max_conc = max_conc;
    h.log_q_floor = log_q_floor;
    const int64_t n_nodes = b[2].shape[0], n_cells = b[7].shape[0], n_groups = b[19].shape[0];
    const int64_t n_trees = b[14].shape[0] - 1;
    const int64_t sizes[4] = {b[0].shape[0], b[9].shape[0], b[10].shape[0], b[11].shape[0]};
    if (n_trees < 0 || b[1].shape[0] != sizes[0] || b[3].shape[0] != n_nodes + 1 ||
        b[4].shape[0] != n_nodes || b[5].shape[0] != n_nodes || b[6].shape[0] != n_nodes ||
        b[8].shape[0] != n_cells || b[13].shape[0] != 2 * n_trees ||
        b[15].shape[0] != n_trees + 1 || b[16].shape[0] != n_trees + 1 ||
        b[17].shape[0] != n_trees + 1 || b[18].shape[0] != n_trees + 1 ||
        b[20].shape[0] != n_groups || b[22].shape[0] != h.table_cols ||
        h.dense_rows > h.table_rows || b[23].shape[0] != n_cells || b[24].shape[0] != n_cells ||
        b[25].shape[0] != n_cells || b[26].shape[0] != 4 * n_trees || b[27].shape[0] != 2 ||
        tree_lo < 0 || tree_hi > n_trees || tree_lo > tree_hi ||
        !hdp_consistent(&h, n_nodes, n_cells, n_groups, n_trees, sizes)) {
        PyErr_SetString(PyExc_ValueError, "hdp_run: inconsistent arguments");
        goto done;
    }
    scratch = (double *)malloc((size_t)(2 * n_groups + 1) * sizeof(double));
    if (!scratch) { PyErr_NoMemory(); goto done; }
    h.rate = scratch, h.shape = scratch + n_groups;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = hdp_loop(&h, tree_lo, tree_hi);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLong(status);
done:
    free(scratch);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- hls_fit ------------------------------------------------------------------------------------ */
/* Newton's method for ridge-penalised log-linear tables over trees: the solver of
 * bnclassify/parameters/hierarchy.py (see hls_fit in _native/smoothing.py, whose numpy version does the same
 * arithmetic level by level). Nodes are numbered parents before children, the children of a node
 * are the nodes child_start[v] .. child_stop[v] - 1 (none: a leaf), and every node holds the
 * counts counts[v * r ..] of the rows counted there (total totals[v]; a leaf's counts, mostly 0
 * at a node with children). beta (nodes x r) is the starting point and the result. */

typedef struct {
    int64_t m, r;
    const int64_t *parent, *child_start, *child_stop;
    const double *ridge, *counts, *totals;
    double *mu, *lp, *grad, *d, *u, *z, *scale, *gain, *lin, *change, *step, *trial, *trial_lp;
    double *p, *trial_p; /* exp(lp), kept with lp: the direction needs no exp */
} hls_state;

/* mu = the sums of beta along the paths, lp = log softmax(mu) and p = softmax(mu) at every node;
 * returns the penalised negative log-likelihood. */
static double hls_objective(const hls_state *h, const double *beta, double *lp, double *p) {
    const int64_t r = h->r;
    double penalty = 0.0, fit = 0.0;
    for (int64_t v = 0; v < h->m; v++) {
        const double *b = beta + v * r;
        double *mu = h->mu + v * r;
        const int64_t up = h->parent[v];
        double squares = 0.0;
        for (int64_t x = 0; x < r; x++) {
            mu[x] = (up >= 0 ? h->mu[up * r + x] : 0.0) + b[x];
            squares += b[x] * b[x];
        }
        penalty += h->ridge[v] * squares;
        double top = mu[0], total = 0.0;
        double *q = p + v * r;
        for (int64_t x = 1; x < r; x++) top = mu[x] > top ? mu[x] : top;
        for (int64_t x = 0; x < r; x++) total += (q[x] = exp(mu[x] - top));
        const double shift = top + log(total), share = 1.0 / total;
        for (int64_t x = 0; x < r; x++) {
            q[x] *= share;
            lp[v * r + x] = mu[x] - shift;
            fit += h->counts[v * r + x] * lp[v * r + x];
        }
    }
    return penalty / 2.0 - fit;
}

/* z (x) = values / scale + gain (z . values) z, the inverse of a node's block */
static void hls_inverse(const hls_state *h, int64_t v, const double *values, double *out) {
    const int64_t r = h->r;
    const double *z = h->z + v * r, *scale = h->scale + v * r;
    double dot = 0.0;
    for (int64_t x = 0; x < r; x++) dot += z[x] * values[x];
    const double g = h->gain[v] * dot;
    for (int64_t x = 0; x < r; x++) out[x] = values[x] / scale[x] + g * z[x];
}

/* One Newton direction from beta (lp up to date); returns the predicted decrease and sets
 * *size to the largest |step|. */
static double hls_direction(const hls_state *h, const double *beta, double *size) {
    const int64_t r = h->r, m = h->m;
    double *tmp = h->trial; /* free until the line search */
    /* gradient: the nodes' residuals summed up the tree, plus ridge * beta; and the blocks */
    for (int64_t v = m - 1; v >= 0; v--) {
        double *g = h->grad + v * r, *d = h->d + v * r, *u = h->u + v * r;
        const int leaf = h->child_start[v] == h->child_stop[v];
        const double *p = h->p + v * r; /* the node's probabilities */
        const double n = h->totals[v], root = sqrt(n);
        double own = 0.0; /* |u|^2 of the node's own rows' rank-one part */
        for (int64_t x = 0; x < r; x++) {
            g[x] = n * p[x] - h->counts[v * r + x];
            d[x] = n * p[x];
            u[x] = root * p[x];
            own += u[x] * u[x];
        }
        if (!leaf) { /* the own rows' and the children's rank-one parts merged into one */
            double norm = own;
            const double own_length = sqrt(own);
            for (int64_t x = 0; x < r; x++) u[x] *= own_length;
            for (int64_t c = h->child_start[v]; c < h->child_stop[v]; c++) {
                const double *gc = h->grad + c * r;
                const double *dc = h->d + c * r, *uc = h->u + c * r; /* the child's message */
                double size2 = 0.0;
                for (int64_t x = 0; x < r; x++) size2 += uc[x] * uc[x];
                const double length = sqrt(size2);
                for (int64_t x = 0; x < r; x++) {
                    g[x] += gc[x] - h->ridge[c] * beta[c * r + x]; /* the child's own sums */
                    d[x] += dc[x];
                    u[x] += length * uc[x];
                }
                norm += length * length;
            }
            norm = sqrt(norm);
            for (int64_t x = 0; x < r; x++) u[x] /= norm > 0.0 ? norm : 1.0;
        }
        const double ridge = h->ridge[v];
        double *scale = h->scale + v * r, *z = h->z + v * r;
        double deficit = leaf ? 0.0 : 1.0;
        for (int64_t x = 0; x < r; x++) {
            scale[x] = d[x] + ridge;
            z[x] = u[x] / scale[x];
            if (leaf) /* 1 - u^T z without cancellation */
                deficit += p[x] * ridge / scale[x];
        }
        if (!leaf) {
            double uz = 0.0;
            for (int64_t x = 0; x < r; x++) uz += u[x] * z[x];
            deficit = 1.0 - uz;
        }
        h->gain[v] = 1.0 / (deficit > 1e-300 ? deficit : 1e-300);
        const double lift = ridge * sqrt(h->gain[v]);
        for (int64_t x = 0; x < r; x++) {
            g[x] += ridge * beta[v * r + x];
            d[x] = ridge * d[x] / scale[x]; /* from here on: the message to the parent */
            u[x] = lift * z[x];
        }
    }
    /* up: each node's linear term, its gradient plus what its children pass */
    for (int64_t v = m - 1; v >= 0; v--) {
        double *lin = h->lin + v * r;
        const double *g = h->grad + v * r;
        if (h->child_start[v] == h->child_stop[v]) {
            for (int64_t x = 0; x < r; x++) lin[x] = g[x];
            continue;
        }
        for (int64_t x = 0; x < r; x++) tmp[x] = 0.0;
        for (int64_t c = h->child_start[v]; c < h->child_stop[v]; c++) {
            double *below = tmp + r;
            hls_inverse(h, c, h->lin + c * r, below);
            for (int64_t x = 0; x < r; x++)
                tmp[x] += h->ridge[c] * below[x] - h->grad[c * r + x];
        }
        for (int64_t x = 0; x < r; x++) lin[x] = g[x] + tmp[x];
    }
    /* down: each node's change of predictor given its parent's, and the step */
    double decrease = 0.0, largest = 0.0;
    for (int64_t v = 0; v < m; v++) {
        const int64_t up = h->parent[v];
        const double ridge = h->ridge[v];
        for (int64_t x = 0; x < r; x++) {
            const double above = up >= 0 ? h->change[up * r + x] : 0.0;
            tmp[x] = up >= 0 ? ridge * above - h->lin[v * r + x] : -h->lin[v * r + x];
        }
        hls_inverse(h, v, tmp, h->change + v * r);
        for (int64_t x = 0; x < r; x++) {
            const double above = up >= 0 ? h->change[up * r + x] : 0.0;
            const double s = up >= 0 ? h->change[v * r + x] - above : h->change[v * r + x];
            h->step[v * r + x] = s;
            decrease -= h->grad[v * r + x] * s;
            largest = fabs(s) > largest ? fabs(s) : largest;
        }
    }
    *size = largest;
    return decrease;
}

static int64_t hls_solve(hls_state *h, double *beta, double *log_p, double tolerance,
                         int64_t max_steps, double local) {
    const int64_t cells = h->m * h->r;
    double value = hls_objective(h, beta, h->lp, h->p);
    int64_t steps = 0;
    for (; steps < max_steps; steps++) {
        double size;
        const double decrease = hls_direction(h, beta, &size);
        if (size <= tolerance || decrease <= 0.0) break;
        /* near the optimum the objective's rounding hides the decrease: take the whole step */
        const int whole = decrease <= local * (1.0 + fabs(value));
        double t = 1.0, trial_value = 0.0;
        int found = 0;
        for (; t >= 1e-8; t /= 2) {
            for (int64_t i = 0; i < cells; i++) h->trial[i] = beta[i] + t * h->step[i];
            trial_value = hls_objective(h, h->trial, h->trial_lp, h->trial_p);
            if (whole || trial_value <= value - 1e-4 * t * decrease) {
                found = 1;
                break;
            }
        }
        if (!found) break; /* no decrease along the step */
        memcpy(beta, h->trial, (size_t)cells * sizeof(double));
        double *swap = h->lp;
        h->lp = h->trial_lp, h->trial_lp = swap;
        swap = h->p, h->p = h->trial_p, h->trial_p = swap;
        value = trial_value;
        if (size * t <= tolerance) {
            steps++;
            break;
        }
    }
    memcpy(log_p, h->lp, (size_t)(h->m * h->r) * sizeof(double));
    return steps;
}

static PyObject *hls_fit(PyObject *self, PyObject *args) {
    enum { N_BUFFERS = 8 };
    PyObject *o[N_BUFFERS];
    long long r, max_steps;
    double tolerance, local;
    if (!PyArg_ParseTuple(args, "OOOOOOOOLdLd", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &r, &tolerance, &max_steps, &local))
        return NULL;
    static const char *names[N_BUFFERS] = {"parent", "child_start", "child_stop", "ridge",
                                           "counts", "totals",      "beta",       "log_p"};
    Py_buffer b[N_BUFFERS];
    int got = 0;
    PyObject *result = NULL;
    double *work = NULL;
    for (; got < N_BUFFERS; got++)
        if (get_1d(o[got], &b[got], got >= 6, 8, names[got]) < 0) goto done;
    hls_state h;
    h.m = b[0].shape[0], h.r = r;
    h.parent = b[0].buf, h.child_start = b[1].buf, h.child_stop = b[2].buf;
    h.ridge = b[3].buf, h.counts = b[4].buf, h.totals = b[5].buf;
    int ok = r >= 1 && b[1].shape[0] == h.m && b[2].shape[0] == h.m && b[3].shape[0] == h.m &&
             b[4].shape[0] == h.m * r && b[5].shape[0] == h.m && b[6].shape[0] == h.m * r &&
             b[7].shape[0] == h.m * r;
    for (int64_t v = 0; ok && v < h.m; v++) {
        const int64_t up = h.parent[v];
        ok = up < v && up >= -1 && h.child_start[v] > v && h.child_start[v] <= h.child_stop[v] &&
             h.child_stop[v] <= h.m;
        for (int64_t c = h.child_start[v]; ok && c < h.child_stop[v]; c++) ok = h.parent[c] == v;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "hls_fit: inconsistent arguments");
        goto done;
    }
    const int64_t cells = h.m * r;
    work = (double *)malloc((size_t)(15 * cells + h.m + 2 * r) * sizeof(double));
    if (!work) {
        PyErr_NoMemory();
        goto done;
    }
    double *next = work;
    h.mu = next, next += cells;
    h.grad = next, next += cells;
    h.d = next, next += cells;
    h.u = next, next += cells;
    h.z = next, next += cells;
    h.scale = next, next += cells;
    h.lin = next, next += cells;
    h.change = next, next += cells;
    h.step = next, next += cells;
    h.trial = next, next += cells + 2 * r; /* also the directions' scratch (2 r) */
    h.lp = next, next += cells;
    h.trial_lp = next, next += cells;
    h.p = next, next += cells;
    h.trial_p = next, next += cells;
    h.gain = next;
    int64_t steps;
    Py_BEGIN_ALLOW_THREADS
    steps = hls_solve(&h, b[6].buf, b[7].buf, tolerance, max_steps, local);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(steps);
done:
    free(work);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- factorize_texts ------------------------------------------------------------------------- */

/* Codes of Arrow text columns (string or large_string chunks: a validity bitmap, offsets and
 * UTF-8 bytes), each column in one pass over its cells: every cell's bytes are looked up in a
 * small open-addressing table of the column's distinct values (after a check against the
 * previous cell, which settles runs), its code written to the column of a 2-D int8 output in
 * order of first appearance; the distinct values are then sorted by their bytes and the codes
 * renumbered to that order in place, while the column is still in cache. UTF-8 compared byte by
 * byte orders text by code point, as Python's sorted() does. A missing cell is -1.
 *
 * Python's per-column work (pyarrow's dictionary_encode, then a look-up through its sorted
 * dictionary) becomes one call for all the columns of a share, without the GIL but for the
 * buffers taken first and the distinct values made Python strings last. A column of more than
 * 127 distinct values, with offsets outside its data or with bytes that are not UTF-8 is given up
 * (None): the caller encodes it another way. */
#define TEXT_MAX_CODES 127

typedef struct {
    const char *ptr;
    Py_ssize_t len;
    uint64_t word; /* the first (up to) 8 bytes, zero-padded: the whole text when len <= 8 */
    int32_t first; /* its code in order of first appearance */
} Text;

typedef struct {
    Py_buffer buffers[3]; /* validity (maybe absent), offsets, data */
    int held;             /* how many of buffers are taken */
    int has_validity, wide;
    Py_ssize_t offset, length;
} TextChunk;

/* The first min(len, 8) bytes at p as a zero-padded word; `room`: the bytes readable from p. */
static inline uint64_t text_word(const char *p, Py_ssize_t len, Py_ssize_t room) {
    uint64_t w = 0;
    if (room >= 8) {
        memcpy(&w, p, 8); /* one load */
        if (len < 8) {
            const uint16_t one = 1;
            if (*(const unsigned char *)&one) w &= (((uint64_t)1 << (8 * len)) - 1); /* little */
            else w &= len ? ~(uint64_t)0 << (8 * (8 - len)) : 0;
        }
        return w;
    }
    unsigned char bytes[8] = {0};
    for (Py_ssize_t i = 0; i < len && i < 8; i++) bytes[i] = (unsigned char)p[i];
    memcpy(&w, bytes, 8);
    return w;
}

static inline size_t text_slot(uint64_t word, Py_ssize_t len, size_t mask) {
    uint64_t h = (word ^ ((uint64_t)len << 56)) * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 40) & mask;
}

static inline int same_text(const Text *t, const char *p, uint64_t word, Py_ssize_t len) {
    return t->word == word && t->len == len &&
           (len <= 8 || memcmp(t->ptr + 8, p + 8, (size_t)(len - 8)) == 0);
}

static int compare_texts(const void *a, const void *b) {
    const Text *x = (const Text *)a, *y = (const Text *)b;
    Py_ssize_t len = x->len < y->len ? x->len : y->len;
    int c = len ? memcmp(x->ptr, y->ptr, (size_t)len) : 0;
    if (c) return c;
    return (x->len > y->len) - (x->len < y->len);
}

/* The scan of one column, without the GIL: 0 done (*count distinct values in texts, sorted,
 * codes written), 1 given up, -1 out of memory. out: the column's first cell, step: its row
 * stride. */
static int scan_texts(const TextChunk *chunks, Py_ssize_t n_chunks, char *out, Py_ssize_t step,
                      Text *texts, int *count_out) {
    int32_t table[512]; /* open addressing over the distinct values: at most a quarter full */
    const size_t mask = 511;
    int count = 0;
    for (size_t s = 0; s <= mask; s++) table[s] = -1;
    Py_ssize_t row = 0;
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        const TextChunk *chunk = &chunks[c];
        const unsigned char *valid =
            chunk->has_validity ? (const unsigned char *)chunk->buffers[0].buf : NULL;
        const char *offsets = (const char *)chunk->buffers[1].buf;
        const char *data = (const char *)chunk->buffers[2].buf;
        Py_ssize_t size = chunk->buffers[2].len;
        for (Py_ssize_t i = chunk->offset; i < chunk->offset + chunk->length; i++, row++) {
            char *cell = out + row * step;
            if (valid && !((valid[i >> 3] >> (i & 7)) & 1)) {
                *cell = -1;
                continue;
            }
            int64_t a, b;
            if (chunk->wide) {
                a = ((const int64_t *)offsets)[i];
                b = ((const int64_t *)offsets)[i + 1];
            } else {
                a = ((const int32_t *)offsets)[i];
                b = ((const int32_t *)offsets)[i + 1];
            }
            if (a < 0 || b < a || b > size) return 1;
            const char *p = data + a;
            Py_ssize_t len = (Py_ssize_t)(b - a);
            uint64_t word = text_word(p, len, size - (Py_ssize_t)a);
            size_t s = text_slot(word, len, mask);
            int32_t k;
            while ((k = table[s]) >= 0 && !same_text(&texts[k], p, word, len)) s = (s + 1) & mask;
            if (k < 0) {
                if (count == TEXT_MAX_CODES) return 1;
                k = count++;
                texts[k].ptr = p, texts[k].len = len, texts[k].word = word, texts[k].first = k;
                table[s] = k;
            }
            *cell = (char)k;
        }
    }
    /* sorted by their bytes; then each code renumbered to its value's rank */
    qsort(texts, (size_t)count, sizeof(Text), compare_texts);
    int8_t rank[TEXT_MAX_CODES + 1];
    for (int r = 0; r < count; r++) rank[texts[r].first] = (int8_t)r;
    for (Py_ssize_t r = 0; r < row; r++) {
        char *cell = out + r * step;
        int8_t v = (int8_t)*cell;
        if (v >= 0) *cell = (char)rank[v];
    }
    *count_out = count;
    return 0;
}

static void release_chunks(TextChunk *chunks, Py_ssize_t n) {
    for (Py_ssize_t c = 0; c < n; c++)
        for (int b = 0; b < chunks[c].held; b++)
            if (b > 0 || chunks[c].has_validity) PyBuffer_Release(&chunks[c].buffers[b]);
}

/* Take one chunk's buffers: (validity or None, offsets, data, offset, length, wide). */
static int open_chunk(PyObject *spec, TextChunk *chunk) {
    PyObject *validity, *offsets, *data;
    Py_ssize_t offset, length;
    int wide;
    chunk->held = 0, chunk->has_validity = 0;
    if (!PyArg_ParseTuple(spec, "OOOnnp", &validity, &offsets, &data, &offset, &length, &wide))
        return -1;
    chunk->offset = offset, chunk->length = length, chunk->wide = wide;
    chunk->has_validity = validity != Py_None;
    PyObject *objs[3] = {validity, offsets, data};
    for (int b = 0; b < 3; b++) {
        if (b == 0 && !chunk->has_validity) {
            chunk->held = 1;
            continue;
        }
        if (PyObject_GetBuffer(objs[b], &chunk->buffers[b], PyBUF_SIMPLE) < 0) return -1;
        chunk->held = b + 1;
    }
    Py_ssize_t width = wide ? 8 : 4;
    if (offset < 0 || length < 0 || chunk->buffers[1].len < (offset + length + 1) * width ||
        (chunk->has_validity && chunk->buffers[0].len < (offset + length + 7) / 8)) {
        PyErr_SetString(PyExc_ValueError, "factorize_texts: a chunk's buffers are too short");
        return -1;
    }
    return 0;
}

static PyObject *factorize_texts(PyObject *self, PyObject *args) {
    PyObject *columns_obj, *out_obj;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "O!On", &PyList_Type, &columns_obj, &out_obj, &first)) return NULL;
    Py_buffer out;
    if (get_2d(out_obj, &out, 1, "out") < 0) return NULL;
    int out_signed = 0;
    Py_ssize_t k = PyList_GET_SIZE(columns_obj), n = out.shape[0];
    PyObject *result = NULL;
    TextChunk **chunks = (TextChunk **)calloc((size_t)(k ? k : 1), sizeof(TextChunk *));
    Py_ssize_t *n_chunks = (Py_ssize_t *)calloc((size_t)(k ? k : 1), sizeof(Py_ssize_t));
    Text *texts = (Text *)malloc((size_t)(k ? k : 1) * (TEXT_MAX_CODES + 1) * sizeof(Text));
    int *status = (int *)calloc((size_t)(k ? k : 1), sizeof(int)), *counts = (int *)calloc((size_t)(k ? k : 1), sizeof(int));
    if (!chunks || !n_chunks || !texts || !status || !counts) {
        PyErr_NoMemory();
        goto done;
    }
    if (int_kind(&out, &out_signed) != 1 || !out_signed || first < 0 || first + k > out.shape[1]) {
        PyErr_SetString(PyExc_ValueError, "factorize_texts: out must be int8 with a column for each");
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *column = PyList_GET_ITEM(columns_obj, j);
        if (!PyTuple_Check(column)) {
            PyErr_SetString(PyExc_TypeError, "factorize_texts: a column is a tuple of chunks");
            goto done;
        }
        Py_ssize_t c_count = PyTuple_GET_SIZE(column), rows = 0;
        chunks[j] = (TextChunk *)calloc((size_t)(c_count ? c_count : 1), sizeof(TextChunk));
        if (!chunks[j]) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t c = 0; c < c_count; c++) {
            n_chunks[j] = c + 1;
            if (open_chunk(PyTuple_GET_ITEM(column, c), &chunks[j][c]) < 0) goto done;
            rows += chunks[j][c].length;
        }
        if (rows != n) {
            PyErr_SetString(PyExc_ValueError, "factorize_texts: a column's length differs from out's");
            goto done;
        }
    }
    char *base = (char *)out.buf;
    Py_ssize_t s0 = out.strides[0], s1 = out.strides[1];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < k; j++)
        status[j] = scan_texts(chunks[j], n_chunks[j], base + (first + j) * s1, s0,
                               texts + j * (TEXT_MAX_CODES + 1), &counts[j]);
    Py_END_ALLOW_THREADS
    result = PyList_New(k);
    for (Py_ssize_t j = 0; result && j < k; j++) {
        PyObject *values = NULL;
        if (status[j] == 0 && (values = PyList_New(counts[j]))) {
            for (int r = 0; r < counts[j]; r++) {
                const Text *t = &texts[j * (TEXT_MAX_CODES + 1) + r];
                PyObject *text = PyUnicode_DecodeUTF8(t->ptr, t->len, NULL);
                if (!text) { /* not UTF-8: given up, as pyarrow's own reading would fail */
                    PyErr_Clear();
                    Py_CLEAR(values);
                    break;
                }
                PyList_SET_ITEM(values, r, text);
            }
        }
        if (!values) {
            if (PyErr_Occurred()) {
                Py_CLEAR(result);
                break;
            }
            values = Py_None;
            Py_INCREF(values);
        }
        PyList_SET_ITEM(result, j, values);
    }
done:
    for (Py_ssize_t j = 0; chunks && j < k; j++)
        if (chunks[j]) {
            release_chunks(chunks[j], n_chunks[j]);
            free(chunks[j]);
        }
    free(chunks), free(n_chunks), free(texts), free(status), free(counts);
    PyBuffer_Release(&out);
    return result;
}

/* -- loo_scores --------------------------------------------------------------------------------- */

/* Selective KDB's leave-one-out pass over a block of rows (bnclassify/classifiers/_selective.py
 * prepares the indices; _native.loo_scores is the numpy version and documents the arguments).
 * A row's K + 1 candidates' log joint scores live in a few hundred bytes, so the pass keeps those
 * of a chunk of rows (see loo_block), reads each count once per row and writes nothing but the
 * (K + 1, m + 1) totals. */
#define LOO_SEEN 1e-9
/* exp(-37) < 2^-53: a term that adds nothing to a sum of at least 1 */
#define LOO_NEGLIGIBLE -37.0

/* Whether a row's family at a depth past 0 has another row: its weight in the family's cell
 * (all classes) less the row's held-out copy is not zero, to the rounding of summed weights. */
static inline int loo_others_seen(const double *counts, int64_t C, double held) {
    double others = 0.0;
    for (int64_t c = 0; c < C; c++) others += counts[c];
    others -= held;
    return others > LOO_SEEN * (1.0 + others);
}

static double loo_row_loss(const double *joint, int64_t C, int64_t yi, int criterion) {
    double top = joint[0];
    int64_t best = 0;
    for (int64_t c = 1; c < C; c++)
        if (joint[c] > top) { top = joint[c]; best = c; }
    if (criterion == 1) return best != yi ? 1.0 : 0.0;
    /* exp(0) is exactly 1: the top class's term needs no call; after it the sum is at least 1,
     * which a term below 2^-53 (exp of less than LOO_NEGLIGIBLE) leaves as it is: no call */
    double sum = 0.0;
    for (int64_t c = 0; c < best; c++) sum += exp(joint[c] - top);
    sum += 1.0;
    for (int64_t c = best + 1; c < C; c++)
        if (joint[c] - top >= LOO_NEGLIGIBLE) sum += exp(joint[c] - top);
    double log_true = joint[yi] - (top + log(sum));
    if (criterion == 0) {
        double miss = 1.0 - exp(log_true);
        return miss * miss;
    }
    return -log_true;
}

/* The candidates k >= hi (the deepest prefix any attribute of the row has reached so far) have
 * added the same terms in the same order, so their scores are equal to the last bit: the row keeps
 * them once (joint[hi]) and copies them out when a deeper prefix separates them. A missing
 * attribute adds no term: the row's losses stay those of the previous attribute. */
/* log(v + a) from a table when v is a whole number in [0, LOG_TABLE) (unweighted counts: most
 * cells), else computed: the same double either way. */
#define LOG_TABLE 1024
static inline double log_plus(double v, double a, const double *table) {
    if (v >= 0.0 && v < (double)LOG_TABLE) {
        const int64_t k = (int64_t)v;
        if ((double)k == v) return table[k];
    }
    return log(v + a);
}

/* Rows in chunks whose candidates' scores stay in cache (LOO_CHUNK_DOUBLES), each chunk attribute
 * by attribute: one attribute's count rows are read by the whole chunk while they are in cache
 * (row by row, every attribute's tables would be fetched again for every row). Each total still
 * gains its rows in row order, so the sums are those of a row-at-a-time pass to the last bit. */
#define LOO_CHUNK_DOUBLES 32768
static int64_t loo_chunk_rows(int64_t n, int64_t D, int64_t C) {
    int64_t rows = LOO_CHUNK_DOUBLES / (D * C + D);
    if (rows < 1) rows = 1;
    return rows < n ? rows : (n > 0 ? n : 1);
}

static void loo_block(const int64_t *family, const int64_t *parent, const double *fc,
                      const double *pc, const int64_t *y, const double *w, const double *cw,
                      double class_total, const double *inverse_r, int64_t n, int64_t m,
                      int64_t D, int64_t C, int criterion, double *total, double *work,
                      double *tables, int64_t *reached) {
    const int64_t R = loo_chunk_rows(n, D, C);
    double *terms = work, *prior = terms + D * C, *joints = prior + C, *losses = joints + R * D * C;
    /* tables[0]: log(k + 1) (parents); tables[1 + u]: log(k + 1/r_u) (attribute u's families) */
    for (int64_t k = 0; k < LOG_TABLE; k++) tables[k] = log((double)k + 1.0);
    for (int64_t u = 0; u < m; u++)
        for (int64_t k = 0; k < LOG_TABLE; k++)
            tables[(1 + u) * LOG_TABLE + k] = log((double)k + inverse_r[u]);
    for (int64_t start = 0; start < n; start += R) {
        const int64_t stop = start + R < n ? start + R : n;
        for (int64_t i = start; i < stop; i++) {
            const int64_t yi = y[i];
            const double wi = w[i], held = wi < 1.0 ? wi : 1.0;
            const double log_rows = log(class_total - held + 1.0);
            double *joint = joints + (i - start) * D * C, *loss = losses + (i - start) * D;
            for (int64_t c = 0; c < C; c++)
                prior[c] = log(cw[c] - (c == yi ? held : 0.0) + 1.0 / (double)C) - log_rows;
            memcpy(joint, prior, C * sizeof(double));
            reached[i - start] = 0;
            loss[0] = loo_row_loss(joint, C, yi, criterion) * wi;
            for (int64_t k = 0; k < D; k++) total[k * (m + 1)] += loss[0];
        }
        for (int64_t u = 0; u < m; u++) {
            const double a = inverse_r[u], *family_logs = tables + (1 + u) * LOG_TABLE;
            for (int64_t i = start; i < stop; i++) {
                const int64_t yi = y[i];
                const double wi = w[i], held = wi < 1.0 ? wi : 1.0;
                double *joint = joints + (i - start) * D * C, *loss = losses + (i - start) * D;
                int64_t hi = reached[i - start];
                const int64_t *fam = family + u * D * n + i, *par = parent + u * D * n + i;
                if (fam[0] >= 0) {
                    int64_t reach = 0;
                    for (int64_t d = 0; d < D; d++) {
                        const int64_t f = fam[d * n];
                        if (f < 0) break;
                        const double *counts = fc + f * C, *parents = pc + par[d * n] * C;
                        double *term = terms + d * C;
                        for (int64_t c = 0; c < C; c++) {
                            const double mine = c == yi ? held : 0.0;
                            term[c] = log_plus(counts[c] - mine, a, family_logs) -
                                      log_plus(parents[c] - mine, 1.0, tables);
                        }
                        if (d) {
                            if (!loo_others_seen(counts, C, held)) break;
                            reach = d;
                        }
                    }
                    for (; hi < reach; hi++)
                        memcpy(joint + (hi + 1) * C, joint + hi * C, C * sizeof(double));
                    for (int64_t k = 0; k <= hi; k++) {
                        const double *term = terms + (k < reach ? k : reach) * C;
                        double *row = joint + k * C;
                        for (int64_t c = 0; c < C; c++) row[c] += term[c];
                        loss[k] = loo_row_loss(row, C, yi, criterion) * wi;
                    }
                    reached[i - start] = hi;
                }
                for (int64_t k = 0; k < D; k++) total[k * (m + 1) + u + 1] += loss[k < hi ? k : hi];
            }
        }
    }
}

static PyObject *loo_scores(PyObject *self, PyObject *args) {
    PyObject *obj[10];
    double class_total;
    int criterion;
    if (!PyArg_ParseTuple(args, "OOOOOOOdOiO", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4],
                          &obj[5], &obj[6], &class_total, &obj[7], &criterion, &obj[8]))
        return NULL;
    /* family, parent (m, D, n) int64; family_counts (F, C), parent_counts (P, C) float64;
     * y (n) int64; w (n), class_weight (C), inverse_r (m) float64; total (D, m + 1) float64 */
    const char *names[9] = {"family", "parent", "family_counts", "parent_counts", "y",
                            "weights", "class_weight", "inverse_r", "total"};
    Py_buffer b[9];
    int got = 0;
    PyObject *result = NULL;
    double *work = NULL;
    int64_t *reached = NULL;
    for (int k = 0; k < 9; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 8 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) goto done;
        got++;
        const char *f = native_format(b[k].format);
        const char *want = (k == 0 || k == 1 || k == 4) ? "lq" : "d";
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr(want, f[0]) || b[k].itemsize != 8) {
            PyErr_Format(PyExc_TypeError, "loo_scores: %s has the wrong type", names[k]);
            goto done;
        }
    }
    if (b[0].ndim != 3 || b[1].ndim != 3 || b[2].ndim != 2 || b[3].ndim != 2 || b[8].ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "loo_scores: inconsistent arguments");
        goto done;
    }
    const int64_t m = b[0].shape[0], D = b[0].shape[1], n = b[0].shape[2], C = b[2].shape[1];
    const int64_t F = b[2].shape[0], P = b[3].shape[0];
    int ok = b[1].shape[0] == m && b[1].shape[1] == D && b[1].shape[2] == n && b[3].shape[1] == C &&
             b[4].shape[0] == n && b[5].shape[0] == n && b[6].shape[0] == C && b[7].shape[0] == m &&
             b[8].shape[0] == D && b[8].shape[1] == m + 1 && C >= 1 && D >= 1 && criterion >= 0 &&
             criterion <= 2;
    const int64_t *family = b[0].buf, *parent = b[1].buf, *y = b[4].buf;
    for (int64_t i = 0; ok && i < m * D * n; i++)
        ok = family[i] < F && (family[i] < 0 || (parent[i] >= 0 && parent[i] < P));
    for (int64_t i = 0; ok && i < n; i++) ok = y[i] >= 0 && y[i] < C;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "loo_scores: inconsistent arguments");
        goto done;
    }
    const int64_t R = loo_chunk_rows(n, D, C);
    work = malloc(((D + 1) * C + R * (D * C + D) + (m + 1) * LOG_TABLE) * sizeof(double));
    reached = malloc(R * sizeof(int64_t));
    if (!work || !reached) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    loo_block(family, parent, b[2].buf, b[3].buf, y, b[5].buf, b[6].buf, class_total, b[7].buf,
              n, m, D, C, criterion, b[8].buf, work, work + (D + 1) * C + R * (D * C + D), reached);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(work);
    free(reached);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- loo_family_counts, loo_attribute ------------------------------------------------------- */

/* Selective KDB's leave-one-out pass one attribute at a time (bnclassify/_native/selection.py
 * documents the arguments; its numpy versions are the reference). An attribute's tables at depth
 * d are dense in the mixed-radix key of its first d parents' values (then the attribute's), laid
 * out one depth after the other: the same layout on every part of the rows, so counts of parts
 * add up. Nothing of size rows x attributes is kept: a row's keys are recomputed from its codes. */

static void loo_layout(const int64_t *cards, int64_t depths, int64_t *family_at, int64_t *parent_at) {
    int64_t family = 0, parent = 0, configurations = 1;
    for (int64_t d = 0; d < depths; d++) {
        if (d) configurations *= cards[d];
        family_at[d] = family, parent_at[d] = parent;
        family += configurations * cards[0], parent += configurations;
    }
    family_at[depths] = family, parent_at[depths] = parent;
}

static int loo_columns(PyObject *const *obj, Py_buffer *b, int *got, const char *owner,
                       const char *const *names, int count, const int *kinds) {
    /* kinds: 0 int64 1-d, 1 float64 1-d, 2 int64 2-d, 3 float64 2-d, 4 float64 3-d (+8: writable),
     * 5 int8 1-d, 6 int64 3-d */
    for (int k = 0; k < count; k++) {
        const int kind = kinds[k] & 7, writable = kinds[k] & 8;
        const int ints = kind == 0 || kind == 2 || kind == 6;
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) return 0;
        (*got)++;
        const char *f = native_format(b[k].format);
        const char *want = kind == 5 ? "b" : ints ? "lq" : "d";
        const int ndim = kind == 0 || kind == 1 || kind == 5 ? 1 : kind == 4 || kind == 6 ? 3 : 2;
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr(want, f[0]) ||
            b[k].itemsize != (kind == 5 ? 1 : 8) || b[k].ndim != ndim) {
            PyErr_Format(PyExc_TypeError, "%s: %s has the wrong type", owner, names[k]);
            return 0;
        }
    }
    return 1;
}

static PyObject *loo_family_counts(PyObject *self, PyObject *args) {
    PyObject *obj[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4], &obj[5]))
        return NULL;
    /* codes (k, n) int64: each column's codes (-1 missing); family (D) int64: the attribute's
     * column, then its parents'; cards (D) int64: theirs; y (n) int64; weights (n) float64;
     * family_counts (F, C) float64, added to */
    const char *names[6] = {"codes", "family", "cards", "y", "weights", "family_counts"};
    const int kinds[6] = {2, 0, 0, 0, 1, 3 | 8};
    Py_buffer b[6];
    int got = 0;
    PyObject *result = NULL;
    if (!loo_columns(obj, b, &got, "loo_family_counts", names, 6, kinds)) goto done;
    const int64_t k = b[0].shape[0], n = b[0].shape[1], D = b[1].shape[0], C = b[5].shape[1];
    const int64_t *codes = b[0].buf, *family = b[1].buf, *cards = b[2].buf, *y = b[3].buf;
    const double *w = b[4].buf;
    double *fc = b[5].buf;
    int64_t family_at[64], parent_at[64];
    const int64_t *col[64];
    int ok = D >= 1 && D < 64 && b[2].shape[0] == D && b[3].shape[0] == n && b[4].shape[0] == n &&
             C >= 1;
    for (int64_t d = 0; ok && d < D; d++) {
        ok = family[d] >= 0 && family[d] < k && cards[d] >= 1 && cards[d] < ((int64_t)1 << 31);
        if (ok) col[d] = codes + family[d] * n;
    }
    if (ok) {
        loo_layout(cards, D, family_at, parent_at);
        ok = b[5].shape[0] == family_at[D];
    }
    for (int64_t i = 0; ok && i < n; i++) ok = y[i] >= 0 && y[i] < C;
    for (int64_t d = 0; ok && d < D; d++)
        for (int64_t i = 0; ok && i < n; i++) ok = col[d][i] < cards[d];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "loo_family_counts: inconsistent arguments");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    const int64_t r = cards[0];
    for (int64_t i = 0; i < n; i++) {
        const int64_t x = col[0][i];
        if (x < 0) continue;
        const int64_t yi = y[i];
        const double wi = w[i];
        int64_t key = 0;
        for (int64_t d = 0; d < D; d++) {
            if (d) {
                const int64_t z = col[d][i];
                if (z < 0) break;
                key = key * cards[d] + z;
            }
            fc[(family_at[d] + key * r + x) * C + yi] += wi;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    return result;
}

/* A posterior below this (the row's probabilities are kept summing to 1) moves the row to logs:
 * products of ratios would otherwise lose it to underflow before a later attribute could raise it. */
#define LOO_TINY 1e-200

/* -- loo_tables, loo_rows: the pass over chunks of rows, every attribute per chunk ------------- */

/* The pass one attribute at a time over all the rows (loo_family_counts, then a step per
 * attribute) streamed every row's candidates' scores, (K + 1)(C + 1) doubles, through memory once
 * per attribute (190 MB on 10^6 rows of three classes and K = 5). These kernels take the rows in
 * chunks instead, every attribute per chunk: a chunk's codes and scores stay in cache while all
 * the attributes' tables (counted first, by loo_tables) are read. Each table cell gains its rows in
 * row order and each total its rows' losses in row order, as in the pass one attribute at a time:
 * the same sums to the last bit. Arguments common to both: codes (k, N), one row per column of
 * signed 1-, 2-, 4- or 8-byte integers (-1 missing; the numbers read as they are, no copy);
 * families (m, E) int64, each attribute's column, then its ranked parents', -1 after the last;
 * cards (k) int64, each column's categories (at least 1). */

#define LOO_MAX_DEPTHS 64

typedef struct {
    const char *codes;
    int size;                   /* bytes per code */
    int64_t k, N, m, E;
    const int64_t *families, *cards;
    int64_t *depths;            /* (m): each attribute's entries in families */
    int64_t *family_at;         /* (m, E + 1): loo_layout of each attribute's family */
    int64_t *parent_at;         /* (m, E + 1) */
    int64_t *slot;              /* (k): the column's row in a chunk's buffer of codes, -1 unread */
    int64_t *used;              /* the columns read, in order */
    int64_t n_used;
} loo_plan;

static void loo_plan_free(loo_plan *p) {
    free(p->depths), free(p->family_at), free(p->parent_at), free(p->slot), free(p->used);
}

/* Reads the codes, families and cards; 0 (an exception set) when they do not fit together. */
static int loo_plan_open(loo_plan *p, const Py_buffer *codes, const Py_buffer *families,
                         const Py_buffer *cards, const char *owner) {
    memset(p, 0, sizeof(*p));
    int is_signed = 0;
    const int size = int_kind(codes, &is_signed);
    if (codes->ndim != 2 || !is_signed || (size != 1 && size != 2 && size != 4 && size != 8) ||
        !PyBuffer_IsContiguous(codes, 'C')) {
        PyErr_Format(PyExc_TypeError, "%s: codes must be a C-contiguous 2-D array of signed integers",
                     owner);
        return 0;
    }
    p->codes = codes->buf, p->size = size, p->k = codes->shape[0], p->N = codes->shape[1];
    p->m = families->shape[0], p->E = families->shape[1];
    p->families = families->buf, p->cards = cards->buf;
    int ok = cards->shape[0] == p->k && p->E >= 1 && p->E < LOO_MAX_DEPTHS;
    for (int64_t j = 0; ok && j < p->k; j++) ok = p->cards[j] >= 1 && p->cards[j] < ((int64_t)1 << 31);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: inconsistent arguments", owner);
        return 0;
    }
    const int64_t m = p->m, E = p->E;
    p->depths = malloc((m + 1) * sizeof(int64_t));
    p->family_at = malloc((m + 1) * (E + 1) * sizeof(int64_t));
    p->parent_at = malloc((m + 1) * (E + 1) * sizeof(int64_t));
    p->slot = malloc((p->k + 1) * sizeof(int64_t));
    p->used = malloc((p->k + 1) * sizeof(int64_t));
    if (!p->depths || !p->family_at || !p->parent_at || !p->slot || !p->used) {
        PyErr_NoMemory();
        return 0;
    }
    for (int64_t j = 0; j < p->k; j++) p->slot[j] = -1;
    for (int64_t u = 0; ok && u < m; u++) {
        const int64_t *family = p->families + u * E;
        int64_t depths = 0, cards[LOO_MAX_DEPTHS];
        while (depths < E && family[depths] >= 0) depths++;
        for (int64_t d = depths; ok && d < E; d++) ok = family[d] == -1;
        ok = ok && depths >= 1;
        for (int64_t d = 0; ok && d < depths; d++) {
            ok = family[d] < p->k;
            if (!ok) break;
            cards[d] = p->cards[family[d]];
            if (p->slot[family[d]] < 0) p->slot[family[d]] = p->n_used, p->used[p->n_used++] = family[d];
        }
        if (!ok) break;
        p->depths[u] = depths;
        loo_layout(cards, depths, p->family_at + u * (E + 1), p->parent_at + u * (E + 1));
        /* a dense table must be addressable: the caller allocated it, so it fits memory */
        ok = p->family_at[u * (E + 1) + depths] < ((int64_t)1 << 40);
    }
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: inconsistent arguments", owner);
        return 0;
    }
    return 1;
}

/* Codes [start, stop) of the columns used into buffer (n_used, stop - start), int64; 0 when one
 * is at least its column's categories (a negative code is missing). */
static int loo_decode(const loo_plan *p, const int64_t *used, int64_t n_used, int64_t start,
                      int64_t stop, int64_t *buffer) {
    const int64_t R = stop - start;
    int bad = 0;
    for (int64_t s = 0; s < n_used; s++) {
        const int64_t j = used[s], card = p->cards[j];
        int64_t *out = buffer + s * R;
        const size_t at = (size_t)(j * p->N + start);
        switch (p->size) {
        case 1: {
            const int8_t *v = (const int8_t *)p->codes + at;
            for (int64_t i = 0; i < R; i++) out[i] = v[i], bad |= v[i] >= card;
            break;
        }
        case 2: {
            const int16_t *v = (const int16_t *)p->codes + at;
            for (int64_t i = 0; i < R; i++) out[i] = v[i], bad |= v[i] >= card;
            break;
        }
        case 4: {
            const int32_t *v = (const int32_t *)p->codes + at;
            for (int64_t i = 0; i < R; i++) out[i] = v[i], bad |= v[i] >= card;
            break;
        }
        default: {
            const int64_t *v = (const int64_t *)p->codes + at;
            for (int64_t i = 0; i < R; i++) out[i] = v[i], bad |= v[i] >= card;
        }
        }
    }
    return !bad;
}

/* Code of column j at row i of a plan's codes (its bytes per code as they are). */
/* Whether a 1-byte code of the columns read (p->used) in rows [first, first + n) is not below its
 * column's categories: the check of codes read in place, once per call */
static int loo_codes_over(const loo_plan *p, int64_t first, int64_t n) {
    int over = 0;
    for (int64_t s = 0; s < p->n_used; s++) {
        const int64_t j = p->used[s], card = p->cards[j];
        if (card > INT8_MAX) continue; /* no 1-byte code reaches it */
        /* compared as bytes, so the loop is vectorised (widened to 64 bits it was not: about 35
         * ms of each kernel's call at 10^6 rows of hailfinder) */
        const int8_t *v = (const int8_t *)p->codes + (size_t)(j * p->N + first), top = (int8_t)card;
        int8_t any = 0;
        for (int64_t i = 0; i < n; i++) any |= (int8_t)(v[i] >= top);
        over |= any != 0;
    }
    return over;
}

static inline int64_t loo_code_at(const loo_plan *p, int64_t j, int64_t i) {
    const size_t at = (size_t)(j * p->N + i);
    switch (p->size) {
    case 1: return ((const int8_t *)p->codes)[at];
    case 2: return ((const int16_t *)p->codes)[at];
    case 4: return ((const int32_t *)p->codes)[at];
    default: return ((const int64_t *)p->codes)[at];
    }
}

static inline void loo_code_put(char *codes, int size, int64_t at, int64_t v) {
    switch (size) {
    case 1: ((int8_t *)codes)[at] = (int8_t)v; break;
    case 2: ((int16_t *)codes)[at] = (int16_t)v; break;
    case 4: ((int32_t *)codes)[at] = (int32_t)v; break;
    default: ((int64_t *)codes)[at] = v;
    }
}

static inline int64_t loo_code_get(const char *codes, int size, int64_t at) {
    switch (size) {
    case 1: return ((const int8_t *)codes)[at];
    case 2: return ((const int16_t *)codes)[at];
    case 4: return ((const int32_t *)codes)[at];
    default: return ((const int64_t *)codes)[at];
    }
}

/* Opens loo_order's perm (n), level (n) int64 and rows (n, p->n_used) of the codes' integers, and
 * checks them against each other; 0 (an exception set) when they do not fit. */
static int loo_open_order(PyObject *perm, PyObject *level, PyObject *rows, Py_buffer *b, int *got,
                          const loo_plan *p, int64_t n, const char *owner) {
    PyObject *obj[2] = {perm, level};
    const char *names[2] = {"perm", "level"};
    const int kinds[2] = {0, 0};
    if (!loo_columns(obj, b, got, owner, names, 2, kinds)) return 0;
    if (PyObject_GetBuffer(rows, &b[2], PyBUF_RECORDS_RO) < 0) return 0;
    (*got)++;
    int is_signed = 0;
    const int size = int_kind(&b[2], &is_signed);
    const int64_t *order = b[0].buf, *levels = b[1].buf;
    int ok = b[0].shape[0] == n && b[1].shape[0] == n && b[2].ndim == 2 && is_signed &&
             size == p->size && PyBuffer_IsContiguous(&b[2], 'C') && b[2].shape[0] == n &&
             b[2].shape[1] == p->n_used;
    for (int64_t s = 0; ok && s < n; s++)
        ok = order[s] >= 0 && order[s] < n && levels[s] >= 0 && levels[s] <= p->m + 1 &&
             (s > 0 || levels[s] == 0);
    if (!ok) PyErr_Format(PyExc_ValueError, "%s: the order does not fit the rows", owner);
    return ok;
}

/* Each row's deepest observed cell of one family over a chunk of 1-byte codes (col: the family's
 * columns, the attribute's first), eight rows a vector where the CPU has AVX-512 (four with AVX2)
 * instead of one row's depths after another: key turns -1 at a row's first missing code and cell
 * stays at its last observed depth (a row whose attribute is missing is not read). */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define LOO_DEEPEST_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define LOO_DEEPEST_CLONES
#endif
static LOO_DEEPEST_CLONES void loo_deepest(const int8_t *const *col, int64_t depths,
                                           const int64_t *cards, const int64_t *family_at,
                                           int64_t r, int64_t rows, int64_t *restrict cell,
                                           int64_t *restrict key) {
    const int8_t *first = col[0];
    for (int64_t i = 0; i < rows; i++) {
        key[i] = 0;
        cell[i] = family_at[0] + first[i];
    }
    for (int64_t d = 1; d < depths; d++) {
        const int8_t *code = col[d];
        const int64_t card = cards[d], base = family_at[d];
        for (int64_t i = 0; i < rows; i++) {
            const int64_t v = code[i], k = key[i], next = k * card + v;
            const int live = (k >= 0) & (v >= 0);
            key[i] = live ? next : -1;
            cell[i] = live ? base + next * r + first[i] : cell[i];
        }
    }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LOO_DEEPEST_WIDE 1
#include <immintrin.h>
/* loo_deepest with AVX-512F for a family of fewer than 2^32 cells, eight rows at a time through
 * all their depths in registers: every live key, card and r is then below 2^32, so each product
 * is one 32 x 32 -> 64-bit multiplication (vpmuludq; the generic clone's 64-bit vpmullq takes
 * three operations), the same integers; a dead key's (-1) product is masked off. Only cell is
 * written. */
__attribute__((target("avx512f"))) static void loo_deepest_wide(
    const int8_t *const *col, int64_t depths, const int64_t *cards, const int64_t *family_at,
    int64_t r, int64_t rows, int64_t *restrict cell) {
    const int8_t *first = col[0];
    const __m512i rr = _mm512_set1_epi64(r), zero = _mm512_setzero_si512();
    const __m512i dead = _mm512_set1_epi64(-1), base0 = _mm512_set1_epi64(family_at[0]);
    int64_t i = 0;
    for (; i + 8 <= rows; i += 8) {
        const __m512i x = _mm512_cvtepi8_epi64(_mm_loadl_epi64((const __m128i *)(first + i)));
        __m512i k = zero, c = _mm512_add_epi64(base0, x);
        for (int64_t d = 1; d < depths; d++) {
            const __m512i v = _mm512_cvtepi8_epi64(_mm_loadl_epi64((const __m128i *)(col[d] + i)));
            const __m512i card = _mm512_set1_epi64(cards[d]), base = _mm512_set1_epi64(family_at[d]);
            const __m512i next = _mm512_add_epi64(_mm512_mul_epu32(k, card), v);
            const __mmask8 live =
                _mm512_cmpge_epi64_mask(k, zero) & _mm512_cmpge_epi64_mask(v, zero);
            k = _mm512_mask_mov_epi64(dead, live, next);
            const __m512i at = _mm512_add_epi64(base, _mm512_mul_epu32(next, rr));
            c = _mm512_mask_mov_epi64(c, live, _mm512_add_epi64(at, x));
        }
        _mm512_storeu_si512(cell + i, c);
    }
    for (; i < rows; i++) { /* the last rows as loo_deepest takes them */
        int64_t k = 0;
        cell[i] = family_at[0] + first[i];
        for (int64_t d = 1; d < depths; d++) {
            const int64_t v = col[d][i];
            if (v < 0) break;
            k = k * cards[d] + v;
            cell[i] = family_at[d] + k * r + first[i];
        }
    }
}
#else
#define LOO_DEEPEST_WIDE 0
#endif

static PyObject *loo_tables(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *obj[6], *perm_obj, *level_obj, *rows_obj;
    Py_ssize_t chunk;
    if (!PyArg_ParseTuple(args, "OOOOOOOnOOO", &codes_obj, &obj[0], &obj[1], &obj[2], &obj[3],
                          &obj[4], &obj[5], &chunk, &perm_obj, &level_obj, &rows_obj))
        return NULL;
    /* codes, families, cards as above; y (N) int64; weights (N) float64; offsets (m + 1) int64:
     * where each attribute's table starts in counts; counts (T, C) float64, added to; chunk:
     * rows per chunk; perm, level, rows: None, or loo_order's over all the rows (whole weights:
     * a prefix's cells gain its rows' summed weight, the same sums) */
    const char *names[6] = {"families", "cards", "y", "weights", "offsets", "counts"};
    const int kinds[6] = {2, 0, 0, 1, 0, 3 | 8};
    Py_buffer codes, b[6];
    int got = 0, have_codes = 0;
    PyObject *result = NULL;
    loo_plan p;
    memset(&p, 0, sizeof(p));
    int64_t *buffer = NULL, *cells = NULL, *deepest = NULL;
    Py_buffer order[3];
    int got_order = 0;
    if (PyObject_GetBuffer(codes_obj, &codes, PyBUF_RECORDS_RO) < 0) goto done;
    have_codes = 1;
    if (!loo_columns(obj, b, &got, "loo_tables", names, 6, kinds)) goto done;
    if (!loo_plan_open(&p, &codes, &b[0], &b[1], "loo_tables")) goto done;
    const int use_order = perm_obj != Py_None;
    if (use_order && !loo_open_order(perm_obj, level_obj, rows_obj, order, &got_order, &p, p.N,
                                     "loo_tables"))
        goto done;
    const int64_t N = p.N, m = p.m, E = p.E, C = b[5].shape[1];
    const int64_t *y = b[2].buf, *offsets = b[4].buf;
    const double *w = b[3].buf;
    double *counts = b[5].buf;
    int ok = b[2].shape[0] == N && b[3].shape[0] == N && b[4].shape[0] == m + 1 && C >= 1 &&
             chunk >= 1 && offsets[0] == 0 && offsets[m] == b[5].shape[0];
    for (int64_t u = 0; ok && u < m; u++)
        ok = offsets[u + 1] - offsets[u] == p.family_at[u * (E + 1) + p.depths[u]];
    for (int64_t i = 0; ok && i < N; i++) ok = y[i] >= 0 && y[i] < C;
    const int64_t R = chunk < N ? chunk : (N > 0 ? N : 1);
    if (ok) buffer = malloc((p.n_used * R + 1) * sizeof(int64_t));
    if (ok) cells = malloc(((m + 1) * (E + 3) + 1) * sizeof(int64_t));
    if (ok) deepest = malloc((2 * R + 1) * sizeof(int64_t));
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "loo_tables: inconsistent arguments");
        goto done;
    }
    if (!buffer || !cells || !deepest) {
        PyErr_NoMemory();
        goto done;
    }
    /* Whole weights summing below 2^53 into tables that start at zero: every sum of them is exact
     * in any order, so each row adds its weight at its deepest depth only and each depth is then
     * summed into the one above it (a sixth of the scattered additions at five parents) */
    int whole = !use_order;
    double weight_sum = 0.0;
    for (int64_t i = 0; whole && i < N; i++) {
        whole = w[i] >= 0.0 && w[i] == floor(w[i]);
        weight_sum += w[i];
    }
    whole = whole && weight_sum < 9007199254740992.0;
    for (int64_t e = 0; whole && e < b[5].shape[0] * C; e++) whole = counts[e] == 0.0;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    if (use_order) {
        /* level L's prefix: its cells at every depth of attribute L - 1 (cells + L (E + 3)), their
         * number, its class, and its rows' weight, summed as they come; added when it ends */
        const int64_t *perm = order[0].buf, *level = order[1].buf, U = p.n_used;
        const char *rows = order[2].buf;
        double *weight = (double *)(cells + (m + 1) * (E + 2));
        for (int64_t s = 0; s <= N && !bad; s++) {
            const int64_t from = s < N ? level[s] : 0;
            if (s > 0)
                for (int64_t L = from > 1 ? from : 1; L <= m; L++) {
                    const int64_t *at = cells + L * (E + 2), u = L - 1;
                    double *fc = counts + offsets[u] * C;
                    for (int64_t d = 0; d < at[E]; d++) fc[at[d] * C + at[E + 1]] += weight[L];
                }
            if (s == N) break;
            const int64_t i = perm[s];
            const char *row = rows + s * U * p.size;
            if (s + 16 < N) /* the class and weight of a row ahead: the order reads them at random */
                __builtin_prefetch(y + perm[s + 16]), __builtin_prefetch(w + perm[s + 16]);
            for (int64_t L = from > 1 ? from : 1; L <= m; L++) {
                const int64_t u = L - 1, *family = p.families + u * E;
                const int64_t *family_at = p.family_at + u * (E + 1), r = p.cards[family[0]];
                int64_t *at = cells + L * (E + 2), key = 0;
                const int64_t x = loo_code_get(row, p.size, p.slot[family[0]]);
                at[E] = 0, at[E + 1] = y[i], weight[L] = 0.0;
                bad |= x >= r;
                if (x < 0 || bad) continue;
                for (int64_t d = 0; d < p.depths[u]; d++) {
                    if (d) {
                        const int64_t z = loo_code_get(row, p.size, p.slot[family[d]]);
                        bad |= z >= p.cards[family[d]];
                        if (z < 0 || bad) break;
                        key = key * p.cards[family[d]] + z;
                    }
                    at[at[E]++] = family_at[d] + key * r + x;
                }
            }
            for (int64_t L = 1; L <= m; L++) weight[L] += w[i];
        }
    }
    /* with whole weights, 1-byte codes (the encoders' own) are read where they are, checked once
     * here, as loo_rows reads them, instead of widened into a chunk's buffer of int64 */
    const int direct = p.size == 1 && !use_order && whole;
#if LOO_DEEPEST_WIDE
    const int deepest_wide = __builtin_cpu_supports("avx512f");
#endif
    if (direct) bad |= loo_codes_over(&p, 0, N);
    for (int64_t start = 0; start < N && !bad && !use_order; start += R) {
        const int64_t stop = start + R < N ? start + R : N, rows = stop - start;
        if (!direct && !loo_decode(&p, p.used, p.n_used, start, stop, buffer)) {
            bad = 1;
            break;
        }
        for (int64_t u = 0; u < m; u++) {
            const int64_t *family = p.families + u * E, *family_at = p.family_at + u * (E + 1);
            const int64_t depths = p.depths[u], r = p.cards[family[0]];
            const int64_t *col[LOO_MAX_DEPTHS], *cards = p.cards;
            const int8_t *col8[LOO_MAX_DEPTHS];
            for (int64_t d = 0; d < depths; d++) {
                col[d] = buffer + p.slot[family[d]] * rows;
                col8[d] = (const int8_t *)p.codes + (size_t)(family[d] * N + start);
            }
            double *fc = counts + offsets[u] * C;
/* whole weights: each row into its deepest observed depth's cell only (summed up below) */
#define LOO_TABLE_ROWS(COL)                                                                        \
    for (int64_t i = 0; i < rows; i++) {                                                         \
        const int64_t x = COL[0][i];                                                             \
        if (x < 0) continue;                                                                     \
        int64_t key = 0, d = 1;                                                                  \
        for (; d < depths; d++) {                                                                \
            const int64_t z = COL[d][i];                                                         \
            if (z < 0) break;                                                                    \
            key = key * cards[family[d]] + z;                                                    \
        }                                                                                        \
        fc[(family_at[d - 1] + key * r + x) * C + y[start + i]] += w[start + i];                 \
    }
            if (direct) { /* the rows' deepest cells first (loo_deepest), then their additions */
                int64_t family_cards[LOO_MAX_DEPTHS];
                for (int64_t d = 0; d < depths; d++) family_cards[d] = cards[family[d]];
#if LOO_DEEPEST_WIDE
                if (deepest_wide && family_at[depths] <= (int64_t)UINT32_MAX)
                    loo_deepest_wide(col8, depths, family_cards, family_at, r, rows, deepest);
                else
#endif
                    loo_deepest(col8, depths, family_cards, family_at, r, rows, deepest,
                                deepest + R);
                for (int64_t i = 0; i < rows; i++)
                    if (col8[0][i] >= 0) fc[deepest[i] * C + y[start + i]] += w[start + i];
                continue;
            }
            if (whole) {
                LOO_TABLE_ROWS(col)
                continue;
            }
#undef LOO_TABLE_ROWS
            for (int64_t i = 0; i < rows; i++) {
                const int64_t x = col[0][i];
                if (x < 0) continue;
                const int64_t yi = y[start + i];
                const double wi = w[start + i];
                int64_t key = 0;
                for (int64_t d = 0; d < depths; d++) {
                    if (d) {
                        const int64_t z = col[d][i];
                        if (z < 0) break;
                        key = key * cards[family[d]] + z;
                    }
                    fc[(family_at[d] + key * r + x) * C + yi] += wi;
                }
            }
        }
    }
    for (int64_t u = 0; u < m && whole && !bad; u++) {
        /* depth d's cell (key, x) into depth d - 1's (key / card_d, x), deepest first */
        const int64_t *family = p.families + u * E, *family_at = p.family_at + u * (E + 1);
        const int64_t r = p.cards[family[0]];
        double *fc = counts + offsets[u] * C;
        for (int64_t d = p.depths[u] - 1; d >= 1; d--) {
            const int64_t card = p.cards[family[d]], keys = (family_at[d + 1] - family_at[d]) / r;
            for (int64_t key = 0; key < keys; key++)
                for (int64_t x = 0; x < r; x++) {
                    const double *from = fc + (family_at[d] + key * r + x) * C;
                    double *to = fc + (family_at[d - 1] + (key / card) * r + x) * C;
                    for (int64_t c = 0; c < C; c++) to[c] += from[c];
                }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "loo_tables: a code is not below its column's categories");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(buffer), free(cells), free(deepest);
    loo_plan_free(&p);
    if (have_codes) PyBuffer_Release(&codes);
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    for (int j = 0; j < got_order; j++) PyBuffer_Release(&order[j]);
    return result;
}

/* A cell's record for rows of weight 1 (most), which leave 1 out of every cell: its ratios
 * (N(c, pa, x) + a) / (N(c, pa) + 1) for the classes other than the row's, then with the row's
 * copy left out, then whether another row has the family: 2C + 1 doubles, read together. records
 * are zeroed (calloc) and a cell no row is in, past the first `always` cells (depth 0, whose
 * ratios are read without the flag), keeps its zeros: its flag says "not seen" as the formula's
 * would, and the ratios behind that flag are never read. Most cells of deep families are empty
 * (on 10^5 rows of hailfinder 58,199 of 2.03 million), so the divisions and the pages written
 * are those of the cells the rows are in, and the cells of an empty parent cell are not read.
 * The parent cell of cells f = P r .. P r + r - 1 is P. Returns the number of occupied cells, or
 * -1 (the records unfinished) when more than `limit` cells are occupied. */
static int64_t loo_records(const double *fc, const double *pc, int64_t F, int64_t r, int64_t C,
                       double a, int64_t always, int64_t limit, double *records) {
    int64_t occupied = 0;
    for (int64_t pf = 0, f = 0; f < F; pf++) {
        const double *parents = pc + pf * C;
        if (f >= always) { /* an empty parent cell: its r cells are empty (counts are >= 0) */
            int64_t any = 0;
            for (int64_t c = 0; c < C; c++) any |= parents[c] != 0.0;
            if (!any) {
                f += r;
                continue;
            }
        }
        for (int64_t x = 0; x < r && f < F; x++, f++) {
            const double *counts = fc + f * C;
            if (f >= always) {
                int64_t any = 0;
                for (int64_t c = 0; c < C; c++) any |= counts[c] != 0.0;
                if (!any) continue;
            }
            if (++occupied > limit) return -1;
            double *other = records + f * (2 * C + 1), *own = other + C, total = 0.0;
            for (int64_t c = 0; c < C; c++) {
                other[c] = (counts[c] - 0.0 + a) / (parents[c] - 0.0 + 1.0);
                own[c] = (counts[c] - 1.0 + a) / (parents[c] - 1.0 + 1.0);
                total += counts[c];
            }
            total -= 1.0;
            own[C] = total > LOO_SEEN * (1.0 + total) ? 1.0 : 0.0;
        }
    }
    return occupied;
}

/* Doubles of the cells' records (loo_records) of all the attributes at most (128 MB, mostly
 * untouched: only the cells rows are in are written): an attribute past it, with more than
 * LOO_RECORD_CELLS_PER_ROW cells per row (loo_rows' record_cells), or with more cells than rows
 * of which more than the rows are occupied, computes its ratios per row (the same numbers). A
 * record costs a scan of its cell's counts (and its divisions if a row is in it), a row's step
 * without records about 160 cycles more than with them (10^5 rows of hailfinder: 266 against 100
 * a row and attribute). */
#define LOO_RECORD_DOUBLES ((int64_t)1 << 24)
#define LOO_RECORD_CELLS_PER_ROW 16

#if defined(__GNUC__)
/* Two candidates' numbers side by side (SSE2 on x86-64, NEON on arm64): each operation rounds
 * as its scalar twin does, lane by lane */
typedef double loo_pair2 __attribute__((vector_size(16)));
typedef int64_t loo_mask2 __attribute__((vector_size(16)));
#define LOO_PAIRS 1
static inline loo_pair2 loo_pair_load(const double *p) {
    loo_pair2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void loo_pair_store(double *p, loo_pair2 v) { memcpy(p, &v, sizeof v); }
#else
#define LOO_PAIRS 0
#endif
/* Classes at most of the paired step's registers */
#define LOO_PAIR_CLASSES 8

/* One attribute's step of one row's candidates: joint (C, D) its scores class by class, the D
 * candidates of a class side by side (joint[c D + k]), loss (D) its losses times wi, *logs
 * whether it is kept in logs. Every candidate is carried: those past the deepest prefix the row
 * has reached (*hi) have taken the same terms in the same order as it, so they hold its numbers
 * to the last bit (a product over all D candidates of a class, two at a time, costs less than
 * keeping them once and copying them out); *hi says which losses differ. z: the row's codes of
 * the attribute's family (z[0] >= 0: the attribute is observed), cards theirs; held = min(wi, 1)
 * of the row leaves every cell (records, where given, hold the ratios of held = 1: a record's
 * numbers are those computed from the counts, to the last bit); ratios (D, C) and scratch
 * (max(C, D) doubles) are work space. Returns whether the row moved to logs. */
static inline __attribute__((always_inline)) int loo_step(
    const int64_t *z, const int64_t *cards, int64_t depths, const int64_t *family_at,
    const int64_t *parent_at, const double *fc, const double *pc, const double *rec, double inv_r,
    int64_t C, int64_t D, int64_t yi, double wi, int criterion, double *ratios, double *joint,
    double *loss, int64_t *hi_io, int8_t *logs, double *scratch) {
    const double held = wi < 1.0 ? wi : 1.0;
    const int64_t RS = 2 * C + 1, r = cards[0], x = z[0];
    int64_t key = 0, reach = 0, hi = *hi_io;
    for (int64_t d = 0; d < depths; d++) {
        if (d) {
            if (z[d] < 0) break;
            key = key * cards[d] + z[d];
        }
        const int64_t f = family_at[d] + key * r + x;
        double *ratio = ratios + d * C;
        if (rec && held == 1.0) {
            const double *cell = rec + f * RS;
            for (int64_t c = 0; c < C; c++) ratio[c] = cell[c];
            ratio[yi] = cell[C + yi];
            if (d) {
                if (cell[2 * C] == 0.0) break;
                reach = d;
            }
            continue;
        }
        const double *counts = fc + f * C;
        const double *parents = pc + (parent_at[d] + key) * C;
        for (int64_t c = 0; c < C; c++) {
            const double mine = c == yi ? held : 0.0;
            ratio[c] = (counts[c] - mine + inv_r) / (parents[c] - mine + 1.0);
        }
        if (d) {
            if (!loo_others_seen(counts, C, held)) break;
            reach = d;
        }
    }
    if (reach > hi) hi = reach;
    int moved = 0;
    if (*logs) {
        for (int64_t d = 0; d <= reach; d++)
            for (int64_t c = 0; c < C; c++) ratios[d * C + c] = log(ratios[d * C + c]);
        for (int64_t c = 0; c < C; c++)
            for (int64_t k = 0; k < D; k++) joint[c * D + k] += ratios[(k < reach ? k : reach) * C + c];
        for (int64_t k = 0; k <= hi; k++) {
            for (int64_t c = 0; c < C; c++) scratch[c] = joint[c * D + k];
            loss[k] = loo_row_loss(scratch, C, yi, criterion) * wi;
        }
        *hi_io = hi;
        return 0;
    }
    int tiny = 0;
#if LOO_PAIRS
    if (criterion == 0 && D % 2 == 0 && C <= LOO_PAIR_CLASSES) {
        const loo_pair2 small = {LOO_TINY, LOO_TINY}, one = {1.0, 1.0}, weight = {wi, wi};
        loo_mask2 below = {0, 0};
        for (int64_t q = 0; q < D; q += 2) {
            const double *first = ratios + (q < reach ? q : reach) * C;
            const double *second = ratios + (q + 1 < reach ? q + 1 : reach) * C;
            loo_pair2 p[LOO_PAIR_CLASSES], sum = {0.0, 0.0};
            for (int64_t c = 0; c < C; c++) {
                const loo_pair2 ratio = {first[c], second[c]};
                p[c] = loo_pair_load(joint + c * D + q) * ratio;
                sum += p[c];
            }
            const loo_pair2 scale = one / sum, miss = (sum - p[yi]) * scale;
            loo_pair_store(loss + q, miss * miss * weight);
            for (int64_t c = 0; c < C; c++) {
                p[c] *= scale;
                loo_pair_store(joint + c * D + q, p[c]);
                below |= p[c] < small;
            }
        }
        tiny = (below[0] | below[1]) != 0;
    } else
#endif
    {
        double *sum = scratch;
        for (int64_t k = 0; k < D; k++) sum[k] = 0.0;
        for (int64_t c = 0; c < C; c++)
            for (int64_t k = 0; k < D; k++) {
                joint[c * D + k] *= ratios[(k < reach ? k : reach) * C + c];
                sum[k] += joint[c * D + k];
            }
        for (int64_t k = 0; k < D; k++) {
            const double total = sum[k], scale = 1.0 / total;
            if (criterion == 0) {
                const double miss = (total - joint[yi * D + k]) * scale;
                loss[k] = miss * miss * wi;
            } else if (criterion == 1) {
                int64_t best = 0;
                for (int64_t c = 1; c < C; c++)
                    if (joint[c * D + k] > joint[best * D + k]) best = c;
                loss[k] = (best != yi ? 1.0 : 0.0) * wi;
            } else if (k <= hi) {
                loss[k] = (log(total) - log(joint[yi * D + k])) * wi;
            }
            sum[k] = scale;
        }
        for (int64_t c = 0; c < C; c++)
            for (int64_t k = 0; k < D; k++) {
                joint[c * D + k] *= sum[k];
                tiny |= joint[c * D + k] < LOO_TINY;
            }
    }
    if (tiny) {
        for (int64_t e = 0; e < C * D; e++) joint[e] = log(joint[e]);
        *logs = 1;
        moved = 1;
    }
    *hi_io = hi;
    return moved;
}

/* -- the chunked pass's steps eight candidates a vector, where the CPU has AVX-512 ------------- */

/* SKDB's default (the root mean squared error, K = 5: six candidates, two or three classes, every
 * cell with its record) takes most of the fit's time in the chunked pass. With AVX-512 a class's
 * six candidates are one vector (two lanes masked off): the ratios are laid out class by class,
 * each class's ratios one vector over the depths, spread to the candidates by one permutation
 * (candidate k takes depth min(k, reach)) instead of built from scalars; each lane rounds as
 * loo_step's pairs do, no product fused into a sum (fp-contract off), so the numbers are those of
 * the pass without it to the last bit. Rows the vector step does not take (in logs, or of weight
 * below 1) go through loo_step. Chosen at run time (__builtin_cpu_supports); nothing global is set. */
#if LOO_PAIRS && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LOO_WIDE 1

/* One attribute's arguments of loo_step that do not change from row to row */
typedef struct {
    const int64_t *cards, *family_at, *parent_at;
    const double *fc, *pc, *rec;
    double inv_r;
    int64_t depths, C, D;
    int criterion;
    double *ratios, *scratch;
} loo_attribute;

/* loo_step for a row the vector step leaves (not inlined: the vector code is compiled apart) */
static __attribute__((noinline)) int loo_step_call(const loo_attribute *a, const int64_t *z,
                                                   int64_t yi, double wi, double *joint, double *loss,
                                                   int64_t *hi, int8_t *logs) {
#define LOO_CALL_STEP(CLASSES, DEPTHS)                                                                   \
    loo_step(z, a->cards, a->depths, a->family_at, a->parent_at, a->fc, a->pc, a->rec, a->inv_r,  \
             CLASSES, DEPTHS, yi, wi, a->criterion, a->ratios, joint, loss, hi, logs, a->scratch)
    return a->C == 2 ? LOO_CALL_STEP(2, 6) : LOO_CALL_STEP(3, 6); /* the vector step's cases */
#undef LOO_CALL_STEP
}

#include <immintrin.h>
#pragma GCC push_options
#pragma GCC target("avx512f")
#pragma GCC optimize("fp-contract=off")

/* The ratios of a row whose attribute and five parents are observed and whose five parents' cells
 * are all seen (all but about 5 in 10^5 steps on hailfinder's categoricals): rc[c] holds class c's
 * ratio at depth min(k, 5) in lane k, as the depth loop of loo_wide_rows_c spreads them (the same
 * doubles), but the five cells are found at once (their keys need only the codes) and the ratios
 * spread with constant masks, without the loop's chain of loads and branches per depth. Returns 0
 * (rc unspecified) where the row is not such a row; at: where each class's ratio is in a record. */
typedef struct {
    int64_t c2, c3, c4, c5, f0, f1, f2, f3, f4, f5, r;
} loo_six;
static inline __attribute__((always_inline)) int loo_wide_six(const loo_six *q, const double *rec,
                                                              const int64_t C,
                                                              const int8_t *const *col, int64_t i,
                                                              const int64_t *at, __m512d *rc) {
    const int64_t RS = 2 * C + 1, x = col[0][i], v1 = col[1][i], v2 = col[2][i], v3 = col[3][i];
    const int64_t v4 = col[4][i], v5 = col[5][i];
    if ((x | v1 | v2 | v3 | v4 | v5) < 0) return 0;
    const int64_t k2 = v1 * q->c2 + v2, k3 = k2 * q->c3 + v3, k4 = k3 * q->c4 + v4;
    const int64_t k5 = k4 * q->c5 + v5, r = q->r;
    const double *e = rec + (q->f0 + x) * RS;
    for (int64_t c = 0; c < C; c++) rc[c] = _mm512_set1_pd(e[at[c]]);
    int seen = 1;
#define LOO_SPREAD(CELL, LANES)                                                                    \
    e = rec + (CELL + x) * RS, seen &= e[2 * C] != 0.0;                                            \
    for (int64_t c = 0; c < C; c++)                                                                \
        rc[c] = _mm512_mask_mov_pd(rc[c], LANES, _mm512_set1_pd(e[at[c]]));
    LOO_SPREAD(q->f1 + v1 * r, 0xFE)
    LOO_SPREAD(q->f2 + k2 * r, 0xFC)
    LOO_SPREAD(q->f3 + k3 * r, 0xF8)
    LOO_SPREAD(q->f4 + k4 * r, 0xF0)
    LOO_SPREAD(q->f5 + k5 * r, 0xE0)
#undef LOO_SPREAD
    return seen;
}

/* A row's step from its ratios rc (lane k: candidate k's): the products, their sum, the loss of
 * each candidate (returned) and the renormalised scores stored; *below: whether a score fell under
 * LOO_TINY (the row then moves to logs). */
static inline __attribute__((always_inline)) __m512d loo_wide_scores(const int64_t C,
                                                                     const __m512d *rc,
                                                                     double *joint, int64_t yi,
                                                                     double wi, __mmask8 *below) {
    const __mmask8 six = 0x3F;
    const __m512d one = _mm512_set1_pd(1.0), small = _mm512_set1_pd(LOO_TINY);
    __m512d p[LOO_PAIR_CLASSES], sum = _mm512_setzero_pd();
    for (int64_t c = 0; c < C; c++) {
        p[c] = _mm512_mul_pd(_mm512_maskz_loadu_pd(six, joint + c * 6), rc[c]);
        sum = _mm512_add_pd(sum, p[c]);
    }
    const __m512d scale = _mm512_maskz_div_pd(six, one, sum);
    const __m512d miss = _mm512_mul_pd(_mm512_sub_pd(sum, p[yi]), scale);
    const __m512d row_loss = _mm512_mul_pd(_mm512_mul_pd(miss, miss), _mm512_set1_pd(wi));
    __mmask8 tiny = 0;
    for (int64_t c = 0; c < C; c++) {
        p[c] = _mm512_mul_pd(p[c], scale);
        _mm512_mask_storeu_pd(joint + c * 6, six, p[c]);
        tiny |= _mm512_mask_cmp_pd_mask(six, p[c], small, _CMP_LT_OQ);
    }
    *below = tiny;
    return row_loss;
}

/* The rows [0, rows) of a chunk for one attribute (criterion 0, D = 6, C classes, records): col
 * the rows' 1-byte codes of the attribute's family, y and w theirs, joints (rows, C, 6), losses
 * (rows, 6), reached, logs theirs; total the attribute's column of the totals (stride M), added
 * to in row order. Returns the rows moved to logs. With five parents, the rows loo_wide_six takes
 * (nearly all) skip the depth loop; the others take it as before. */
static inline __attribute__((always_inline)) int64_t loo_wide_rows_c(
    const loo_attribute *a, const int64_t C, const int8_t *const *col, int64_t rows,
    const int64_t *y, const double *w, double *joints, double *losses, int64_t *reached,
    int8_t *logs, double *total, int64_t M) {
    const int64_t RS = 2 * C + 1, depths = a->depths, r = a->cards[0];
    const int64_t *family_at = a->family_at, *cards = a->cards;
    const double *rec = a->rec;
    const __mmask8 six = 0x3F;
    const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    double sums[8] __attribute__((aligned(64)));
    int64_t z[LOO_MAX_DEPTHS];
    int64_t moved = 0;
    for (int64_t k = 0; k < 8; k++) sums[k] = k < 6 ? total[k * M] : 0.0;
    __m512d sum_total = _mm512_load_pd(sums);
    /* where in a record each class's ratio is, for each class of the row: read from a table, as
     * the compiler otherwise branches on the row's class (taken at random: about one row in two
     * changes class on hailfinder, a mispredicted branch each) */
    int64_t at_of[LOO_PAIR_CLASSES * LOO_PAIR_CLASSES];
    for (int64_t yy = 0; yy < C; yy++)
        for (int64_t c = 0; c < C; c++) at_of[yy * LOO_PAIR_CLASSES + c] = c == yy ? C + c : c;
    const int six_deep = depths == 6;
    loo_six q = {0};
    if (six_deep)
        q = (loo_six){cards[2], cards[3], cards[4], cards[5], family_at[0], family_at[1],
                      family_at[2], family_at[3], family_at[4], family_at[5], r};
    for (int64_t i = 0; i < rows;) {
        if (six_deep && !logs[i] && w[i] >= 1.0) {
            const int64_t yi = y[i];
            __m512d rc[LOO_PAIR_CLASSES];
            if (loo_wide_six(&q, rec, C, col, i, at_of + yi * LOO_PAIR_CLASSES, rc)) {
                __mmask8 below;
                double *joint = joints + i * C * 6;
                const __m512d row_loss = loo_wide_scores(C, rc, joint, yi, w[i], &below);
                _mm512_mask_storeu_pd(losses + i * 6, six, row_loss);
                reached[i] = 5; /* the deepest of six candidates */
                if (below) {
                    for (int64_t e = 0; e < C * 6; e++) joint[e] = log(joint[e]);
                    logs[i] = 1, moved++;
                }
                /* reached 5: candidate k adds its own loss (lanes 6 and 7 are not kept) */
                sum_total = _mm512_add_pd(sum_total, row_loss);
                i++;
                continue;
            }
        }
        double *joint = joints + i * C * 6, *loss = losses + i * 6;
        const int64_t x = col[0][i];
        int fresh = 0; /* the row's losses are in row_loss (read back, a masked store stalls) */
        __m512d row_loss = _mm512_setzero_pd();
        if (x >= 0) {
            const int64_t yi = y[i];
            const double wi = w[i];
            if (logs[i] || !(wi >= 1.0)) {
                for (int64_t d = 0; d < depths; d++) z[d] = col[d][i];
                moved += loo_step_call(a, z, yi, wi, joint, loss, reached + i, logs + i);
            } else {
                /* candidate k's ratio is depth min(k, reach)'s: each depth reached is broadcast
                 * to the lanes from its own on (the row's class reads the held-out ratio) */
                int64_t key = 0, reach = 0;
                const int64_t *at = at_of + yi * LOO_PAIR_CLASSES;
                const double *cell = rec + (family_at[0] + x) * RS;
                __m512d rc[LOO_PAIR_CLASSES];
                for (int64_t c = 0; c < C; c++) rc[c] = _mm512_set1_pd(cell[at[c]]);
                for (int64_t d = 1; d < depths; d++) {
                    const int64_t v = col[d][i];
                    if (v < 0) break;
                    key = key * cards[d] + v;
                    cell = rec + (family_at[d] + key * r + x) * RS;
                    if (cell[2 * C] == 0.0) break;
                    reach = d;
                    const __mmask8 from = (__mmask8)(0xFF << d);
                    for (int64_t c = 0; c < C; c++)
                        rc[c] = _mm512_mask_mov_pd(rc[c], from, _mm512_set1_pd(cell[at[c]]));
                }
                if (reach > reached[i]) reached[i] = reach;
                __mmask8 below;
                row_loss = loo_wide_scores(C, rc, joint, yi, wi, &below);
                _mm512_mask_storeu_pd(loss, six, row_loss);
                fresh = 1;
                if (below) {
                    for (int64_t e = 0; e < C * 6; e++) joint[e] = log(joint[e]);
                    logs[i] = 1;
                    moved++;
                }
            }
        }
        /* the totals: candidate k adds loss[min(k, hi)], lane by lane in row order */
        const __m512i upto = _mm512_min_epi64(iota, _mm512_set1_epi64(reached[i]));
        if (!fresh) row_loss = _mm512_maskz_loadu_pd(six, loss);
        sum_total = _mm512_add_pd(sum_total, _mm512_permutexvar_pd(upto, row_loss));
        i++;
    }
    _mm512_store_pd(sums, sum_total);
    for (int64_t k = 0; k < 6; k++) total[k * M] = sums[k];
    return moved;
}

static int64_t loo_wide_rows(const loo_attribute *a, const int8_t *const *col, int64_t rows,
                             const int64_t *y, const double *w, double *joints, double *losses,
                             int64_t *reached, int8_t *logs, double *total, int64_t M) {
    return a->C == 2 ? loo_wide_rows_c(a, 2, col, rows, y, w, joints, losses, reached, logs, total, M)
                     : loo_wide_rows_c(a, 3, col, rows, y, w, joints, losses, reached, logs, total, M);
}
#pragma GCC pop_options
#else
#define LOO_WIDE 0
#endif

/* -- loo_order: the rows by their prefixes, so that rows sharing one share its terms ----------- */

/* A row's candidates after attribute u depend on its class and the codes of the columns of the
 * families 0..u only (each attribute's parents are earlier columns, or columns read here first).
 * Rows sorted by (class, those columns in order of first appearance) put the rows of one prefix
 * together: the pass computes each distinct prefix's terms once (loo_rows given an order) and adds
 * its losses times the prefix's weight. On 10^6 rows of alarm the 36 levels hold 10% as many
 * distinct prefixes as rows. The sort: by class, then most-significant-digit first, one column at
 * a time within the groups of rows still tied (a group of one row is done), each group by counting
 * (or, for a column of many categories against a small group, by comparison): a stable sort, so
 * rows tied on every column keep their order. */

typedef struct {
    int64_t value, row;
} loo_pair;

static int loo_pair_compare(const void *a, const void *b) {
    const loo_pair *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The rows' keys packed into W words (the class, then every column's code + 1, most significant
 * first, a field never across two words) sorted least significant 16 bits first, each pass
 * stable (a pass whose digit is the same in every row skipped): the lexicographic order of the
 * most-significant-first sort, ties in row order. keys, keys2 (n, W) and perm, perm2 (n): the
 * keys and 0 .. n - 1 in, the sorted ones out (in keys and perm); count: 65537 entries. */
static void loo_radix_sort(uint64_t *keys, uint64_t *keys2, int64_t *perm, int64_t *perm2,
                           int64_t n, int64_t W, int64_t *count) {
    uint64_t *k_in = keys, *k_out = keys2;
    int64_t *p_in = perm, *p_out = perm2;
    for (int64_t w = W - 1; w >= 0 && n > 0; w--)
        for (int shift = 0; shift < 64; shift += 16) {
            memset(count, 0, 65537 * sizeof(int64_t));
            for (int64_t i = 0; i < n; i++) count[((k_in[i * W + w] >> shift) & 0xffff) + 1]++;
            if (count[((k_in[w] >> shift) & 0xffff) + 1] == n) continue;
            for (int64_t d = 0; d < 65536; d++) count[d + 1] += count[d];
            for (int64_t i = 0; i < n; i++) {
                const int64_t q = count[(k_in[i * W + w] >> shift) & 0xffff]++;
                p_out[q] = p_in[i];
                for (int64_t v = 0; v < W; v++) k_out[q * W + v] = k_in[i * W + v];
            }
            uint64_t *k = k_in;
            int64_t *q = p_in;
            k_in = k_out, k_out = k, p_in = p_out, p_out = q;
        }
    if (k_in != keys) {
        memcpy(keys, k_in, (size_t)(n * W) * sizeof(uint64_t));
        memcpy(perm, p_in, (size_t)n * sizeof(int64_t));
    }
}

/* Words of the packed keys at most: wider keys are sorted a column at a time. */
#define LOO_PACKED_WORDS 4

static PyObject *loo_order(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *obj[5], *rows_obj;
    Py_ssize_t first, limit;
    if (!PyArg_ParseTuple(args, "OOOnOOOOn", &codes_obj, &obj[0], &obj[1], &first, &obj[2],
                          &obj[3], &obj[4], &rows_obj, &limit))
        return NULL;
    /* codes, families, cards as above; first: the row of codes of the first row sorted; y (n)
     * int64 their classes; perm (n) int64, out: the rows (0 .. n - 1, from first) in order;
     * level (n) int64, out: the first level at which row perm[s] differs from row perm[s - 1]
     * (0 the class, u + 1 the columns family u reads first; m + 1: equal; level[0] = 0);
     * rows (n, U), out: the codes of the U columns the families read (in order of first
     * appearance) of the rows in that order, of the codes' integers; limit: the most prefixes,
     * summed over the levels 0 .. m, worth the order. Returns whether they are at most limit
     * (False: the sort stopped once they were sure to exceed it, rows not written). */
    const char *names[5] = {"families", "cards", "y", "perm", "level"};
    const int kinds[5] = {2, 0, 0, 0 | 8, 0 | 8};
    Py_buffer codes, b[5];
    int got = 0, have_codes = 0;
    PyObject *result = NULL;
    loo_plan p;
    memset(&p, 0, sizeof(p));
    int64_t *tmp = NULL, *groups = NULL, *next = NULL, *count = NULL, *column_level = NULL;
    loo_pair *pairs = NULL;
    char *by_row = NULL;
    uint64_t *keys = NULL, *bit_level = NULL;
    Py_buffer rows_buffer;
    int have_rows = 0;
    if (PyObject_GetBuffer(codes_obj, &codes, PyBUF_RECORDS_RO) < 0) goto done;
    have_codes = 1;
    if (!loo_columns(obj, b, &got, "loo_order", names, 5, kinds)) goto done;
    if (!loo_plan_open(&p, &codes, &b[0], &b[1], "loo_order")) goto done;
    if (PyObject_GetBuffer(rows_obj, &rows_buffer, PyBUF_RECORDS) < 0) goto done;
    have_rows = 1;
    const int64_t n = b[2].shape[0], m = p.m, E = p.E;
    const int64_t *y = b[2].buf;
    int64_t *perm = b[3].buf, *level = b[4].buf;
    int rows_signed = 0;
    const int rows_size = int_kind(&rows_buffer, &rows_signed);
    int ok = first >= 0 && first + n <= p.N && b[3].shape[0] == n && b[4].shape[0] == n &&
             rows_buffer.ndim == 2 && rows_signed && rows_size == p.size &&
             PyBuffer_IsContiguous(&rows_buffer, 'C') && rows_buffer.shape[0] == n &&
             rows_buffer.shape[1] == p.n_used;
    int64_t C = 0, top = 1;
    for (int64_t i = 0; ok && i < n; i++) {
        ok = y[i] >= 0 && y[i] < ((int64_t)1 << 31);
        if (ok && y[i] + 1 > C) C = y[i] + 1;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "loo_order: inconsistent arguments");
        goto done;
    }
    for (int64_t s = 0; s < p.n_used; s++)
        if (p.cards[p.used[s]] + 1 > top) top = p.cards[p.used[s]] + 1;
    if (C + 1 > top) top = C + 1;
    if (top < 65537) top = 65537;
    /* the packed keys' fields: the class, then each column's code + 1 (0 missing) */
    int64_t W = 1, used_bits = 0;
    {
        int64_t width = C > 1 ? 64 - __builtin_clzll((uint64_t)(C - 1)) : 1;
        used_bits = width;
        for (int64_t s = 0; s < p.n_used && W <= LOO_PACKED_WORDS; s++) {
            width = 64 - __builtin_clzll((uint64_t)p.cards[p.used[s]]);
            if (used_bits + width > 64) W++, used_bits = 0;
            used_bits += width;
        }
    }
    const int packed = W <= LOO_PACKED_WORDS;
    tmp = malloc((n + 1) * sizeof(int64_t));
    count = malloc((top + 1) * sizeof(int64_t));
    column_level = malloc((p.n_used + 1) * sizeof(int64_t));
    by_row = malloc((size_t)(n * p.n_used + 1) * p.size);
    if (packed) {
        keys = calloc((size_t)(2 * n * W + 1), sizeof(uint64_t));
        bit_level = malloc(64 * W * sizeof(uint64_t));
    } else {
        groups = malloc((n + 2) * sizeof(int64_t));
        next = malloc((n + 2) * sizeof(int64_t));
        pairs = malloc((n + 1) * sizeof(loo_pair));
    }
    if (!tmp || !count || !column_level || !by_row || (packed && (!keys || !bit_level)) ||
        (!packed && (!groups || !next || !pairs))) {
        PyErr_NoMemory();
        goto done;
    }
    /* p.used lists the columns by first appearance (loo_plan_open); their levels */
    for (int64_t j = 0; j < p.k; j++) p.slot[j] = -1;
    for (int64_t u = 0, s = 0; u < m; u++)
        for (int64_t d = 0; d < p.depths[u]; d++) {
            const int64_t j = p.families[u * E + d];
            if (p.slot[j] < 0) p.slot[j] = s, column_level[s++] = u + 1;
        }
    int bad = 0, over = 0;
    int64_t prefixes = 0;
    Py_BEGIN_ALLOW_THREADS
    if (packed) {
        /* the keys, a column at a time (each field's bits: its level), then the sort */
        int64_t w = 0, shift = 64, width = C > 1 ? 64 - __builtin_clzll((uint64_t)(C - 1)) : 1;
        for (int64_t b = 0; b < 64 * W; b++) bit_level[b] = m + 1;
        for (int64_t t = -1; t < p.n_used; t++) {
            if (t >= 0) width = 64 - __builtin_clzll((uint64_t)p.cards[p.used[t]]);
            if (shift - width < 0) w++, shift = 64;
            shift -= width;
            for (int64_t b = 0; b < width; b++) bit_level[w * 64 + shift + b] = t < 0 ? 0 : column_level[t];
            if (t < 0) {
                for (int64_t i = 0; i < n; i++) keys[i * W + w] |= (uint64_t)y[i] << shift;
                continue;
            }
            const int64_t j = p.used[t], r = p.cards[j];
            if (p.size == 1) { /* bytes (most encoded tables): a loop the compiler vectorises */
                const int8_t *v = (const int8_t *)p.codes + j * p.N + first;
                int over_card = 0;
                for (int64_t i = 0; i < n; i++) {
                    over_card |= v[i] >= r;
                    keys[i * W + w] |= (uint64_t)(v[i] < 0 ? 0 : v[i] + 1) << shift;
                }
                bad |= over_card;
                continue;
            }
            for (int64_t i = 0; i < n; i++) {
                const int64_t v = loo_code_at(&p, j, first + i);
                bad |= v >= r;
                keys[i * W + w] |= (uint64_t)(v < 0 ? 0 : (v >= r ? 0 : v + 1)) << shift;
            }
        }
        for (int64_t i = 0; i < n; i++) perm[i] = i;
        loo_radix_sort(keys, keys + n * W, perm, tmp, n, W, count);
        if (n > 0) level[0] = 0, prefixes = m + 1;
        for (int64_t s = 1; s < n; s++) {
            int64_t L = m + 1;
            for (int64_t v = 0; v < W; v++) {
                const uint64_t x = keys[s * W + v] ^ keys[(s - 1) * W + v];
                if (x) {
                    L = bit_level[v * 64 + 63 - __builtin_clzll(x)];
                    break;
                }
            }
            level[s] = L, prefixes += m + 1 - L;
        }
        over = prefixes > limit;
    }
    if (!packed) {
        /* by class (counting), the classes' first rows at level 0 */
        for (int64_t c = 0; c <= C; c++) count[c] = 0;
        for (int64_t i = 0; i < n; i++) count[y[i] + 1]++;
        for (int64_t c = 0; c < C; c++) count[c + 1] += count[c];
        for (int64_t s = 0; s < n; s++) level[s] = m + 1;
        int64_t n_groups = 0, distinct = n > 0, at_level = 0;
        for (int64_t c = 0; c < C; c++) {
            if (count[c] > 0 && count[c] < n && level[count[c]] != 0)
                level[count[c]] = 0, distinct++;
            if (count[c + 1] - count[c] > 1) groups[2 * n_groups] = count[c],
                                             groups[2 * n_groups + 1] = count[c + 1], n_groups++;
        }
        for (int64_t i = 0; i < n; i++) perm[count[y[i]]++] = i;
        if (n > 0) level[0] = 0;
        /* then every column within the groups still tied */
        for (int64_t s = 0; s < p.n_used && n_groups > 0 && !bad && !over; s++) {
            const int64_t j = p.used[s], L = column_level[s], r = p.cards[j];
            int64_t n_next = 0;
            if (L > at_level) { /* the levels before L are done: a bound on the prefixes of all */
                prefixes += distinct * (L - at_level), at_level = L;
                if (prefixes + distinct * (m + 1 - at_level) > limit) over = 1;
            }
            for (int64_t g = 0; g < n_groups; g++) {
                const int64_t lo = groups[2 * g], hi = groups[2 * g + 1], size = hi - lo;
                if (r + 1 <= 4 * size + 16) {
                    for (int64_t v = 0; v <= r + 1; v++) count[v] = 0;
                    for (int64_t q = lo; q < hi; q++) {
                        int64_t v = loo_code_at(&p, j, first + perm[q]);
                        bad |= v >= r;
                        v = v < 0 ? 0 : (v >= r ? r : v + 1);
                        tmp[q] = v;
                        count[v + 1]++;
                    }
                    if (count[tmp[lo] + 1] == size) { /* one value: the group stays as it is */
                        next[2 * n_next] = lo, next[2 * n_next + 1] = hi, n_next++;
                        continue;
                    }
                    for (int64_t v = 0; v <= r; v++) count[v + 1] += count[v];
                    for (int64_t v = 0; v <= r; v++) {
                        const int64_t a = lo + count[v], e = lo + count[v + 1];
                        if (e > a && a > lo) level[a] = L, distinct++;
                        if (e - a > 1) next[2 * n_next] = a, next[2 * n_next + 1] = e, n_next++;
                    }
                    /* stable scatter through pairs (their rows), then back into perm */
                    for (int64_t q = lo; q < hi; q++) pairs[lo + count[tmp[q]]++].row = perm[q];
                    for (int64_t q = lo; q < hi; q++) perm[q] = pairs[q].row;
                } else {
                    for (int64_t q = lo; q < hi; q++) {
                        const int64_t v = loo_code_at(&p, j, first + perm[q]);
                        bad |= v >= r;
                        pairs[q].value = v < 0 ? -1 : v, pairs[q].row = perm[q];
                    }
                    qsort(pairs + lo, size, sizeof(loo_pair), loo_pair_compare);
                    for (int64_t q = lo, a = lo; q <= hi; q++) {
                        if (q < hi && pairs[q].value == pairs[a].value) continue;
                        if (a > lo) level[a] = L, distinct++;
                        if (q - a > 1) next[2 * n_next] = a, next[2 * n_next + 1] = q, n_next++;
                        a = q;
                    }
                    for (int64_t q = lo; q < hi; q++) perm[q] = pairs[q].row;
                }
            }
            int64_t *swap = groups;
            groups = next, next = swap, n_groups = n_next;
        }
        prefixes += distinct * (m + 1 - at_level);
    }
    if (!over && prefixes <= limit && !bad) {
        /* the codes row by row (in blocks of rows that stay in cache), then in the order: the
         * passes read a prefix's codes from one or two cache lines, one row after the other */
        const int64_t U = p.n_used, bytes = U * p.size;
        for (int64_t lo = 0; lo < n; lo += 4096) {
            const int64_t hi = lo + 4096 < n ? lo + 4096 : n;
            for (int64_t t = 0; t < U; t++) {
                const int64_t j = p.used[t], r = p.cards[j];
                if (p.size == 1) {
                    const int8_t *v = (const int8_t *)p.codes + j * p.N + first;
                    int8_t *out = (int8_t *)by_row + t;
                    int over_card = 0;
                    for (int64_t i = lo; i < hi; i++) over_card |= v[i] >= r, out[i * U] = v[i];
                    bad |= over_card;
                    continue;
                }
                for (int64_t i = lo; i < hi; i++) {
                    const int64_t v = loo_code_at(&p, j, first + i);
                    bad |= v >= r;
                    loo_code_put(by_row, p.size, i * U + t, v);
                }
            }
        }
        char *out = rows_buffer.buf;
        for (int64_t s = 0; s < n; s++) {
            if (s + 8 < n) __builtin_prefetch(by_row + perm[s + 8] * bytes);
            memcpy(out + s * bytes, by_row + perm[s] * bytes, bytes);
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "loo_order: a code is not below its column's categories");
        goto done;
    }
    result = PyBool_FromLong(!over && prefixes <= limit);
done:
    free(tmp), free(groups), free(next), free(count), free(column_level), free(pairs);
    free(by_row), free(keys), free(bit_level);
    if (have_rows) PyBuffer_Release(&rows_buffer);
    loo_plan_free(&p);
    if (have_codes) PyBuffer_Release(&codes);
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    return result;
}

static PyObject *loo_rows(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *obj[12], *perm_obj, *level_obj, *rows_obj;
    Py_ssize_t first, chunk, group, record_cells = LOO_RECORD_CELLS_PER_ROW, block_rows = 0;
    int criterion, vector_step = 1;
    if (!PyArg_ParseTuple(args, "OOOnOOOOOOOOOOinnOOO|pnn", &codes_obj, &obj[0], &obj[1], &first,
                          &obj[2], &obj[3], &obj[4], &obj[5], &obj[6], &obj[7], &obj[8], &obj[9],
                          &obj[10], &obj[11], &criterion, &chunk, &group, &perm_obj, &level_obj,
                          &rows_obj, &vector_step, &record_cells, &block_rows))
        return NULL;
    /* codes, families, cards as above; first: the row of codes of the first row scored; y (n)
     * int64, weights (n) float64 of the rows scored; counts (T, C) and parent_counts (P, C)
     * float64: every attribute's tables over all the training rows, one after the other, from
     * offsets (m + 1) and parent_offsets (m + 1) int64; inverse_r (m) float64; prior (n, C)
     * float64: each row's class probabilities without it; start (n) float64: its loss with them
     * (not weighted); total (D, m + 1) float64, added to; criterion; chunk: rows per chunk; group:
     * doubles of tables read per group of attributes; perm, level, rows: None, or loo_order's
     * (every weight at least 1): the pass goes through the rows' prefixes in that order, each
     * prefix's terms once; vector_step (optional, true): whether the chunked pass may take its
     * steps with AVX-512 where the CPU has it (the same numbers; false: the tests' reference);
     * record_cells (optional, LOO_RECORD_CELLS_PER_ROW): an attribute's cells have records where
     * they are at most this many per row (0: none, the tests' reference; the same numbers);
     * block_rows (optional, 0: all the rows): with several groups of attributes, the rows go in
     * blocks of this many (rounded up to whole chunks), every group per block (the same numbers).
     * Returns the number of rows moved to logs. */
    const char *names[12] = {"families", "cards", "y", "weights", "counts", "offsets",
                             "parent_counts", "parent_offsets", "inverse_r", "prior", "start",
                             "total"};
    const int kinds[12] = {2, 0, 0, 1, 3, 0, 3, 0, 1, 3, 1, 3 | 8};
    Py_buffer codes, b[12], order[3];
    int got = 0, have_codes = 0, got_order = 0;
    PyObject *result = NULL;
    loo_plan p;
    memset(&p, 0, sizeof(p));
    int64_t *buffer = NULL, *reached = NULL, *record_at = NULL, *groups = NULL, *stack_at = NULL;
    int64_t *occupied = NULL;
    double *work = NULL, *records = NULL;
    int8_t *logs = NULL;
    if (PyObject_GetBuffer(codes_obj, &codes, PyBUF_RECORDS_RO) < 0) goto done;
    have_codes = 1;
    if (!loo_columns(obj, b, &got, "loo_rows", names, 12, kinds)) goto done;
    const int use_order = perm_obj != Py_None;
    if (!loo_plan_open(&p, &codes, &b[0], &b[1], "loo_rows")) goto done;
    if (use_order && !loo_open_order(perm_obj, level_obj, rows_obj, order, &got_order, &p,
                                     b[2].shape[0], "loo_rows"))
        goto done;
    const int64_t m = p.m, E = p.E, n = b[2].shape[0], C = b[4].shape[1];
    const int64_t D = b[11].shape[0], M = b[11].shape[1];
    const int64_t *y = b[2].buf, *offsets = b[5].buf, *parent_offsets = b[7].buf;
    const double *w = b[3].buf, *fc_all = b[4].buf, *pc_all = b[6].buf, *inverse_r = b[8].buf;
    const double *prior = b[9].buf, *start_loss = b[10].buf;
    double *total = b[11].buf;
    int ok = first >= 0 && first + n <= p.N && b[3].shape[0] == n && b[6].shape[1] == C &&
             b[5].shape[0] == m + 1 && b[7].shape[0] == m + 1 && b[8].shape[0] == m &&
             b[9].shape[0] == n && b[9].shape[1] == C && b[10].shape[0] == n && M == m + 1 &&
             D >= E && D < LOO_MAX_DEPTHS && C >= 1 && chunk >= 1 && group >= 1 &&
             criterion >= 0 && criterion <= 2 && record_cells >= 0 && block_rows >= 0 &&
             offsets[0] == 0 && offsets[m] == b[4].shape[0] &&
             parent_offsets[0] == 0 && parent_offsets[m] == b[6].shape[0];
    for (int64_t u = 0; ok && u < m; u++)
        ok = offsets[u + 1] - offsets[u] == p.family_at[u * (E + 1) + p.depths[u]] &&
             parent_offsets[u + 1] - parent_offsets[u] == p.parent_at[u * (E + 1) + p.depths[u]] &&
             inverse_r[u] > 0.0;
    for (int64_t i = 0; ok && i < n; i++) ok = y[i] >= 0 && y[i] < C;
    for (int64_t i = 0; ok && use_order && i < n; i++) ok = w[i] >= 1.0;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "loo_rows: inconsistent arguments");
        goto done;
    }
    const int64_t RS = 2 * C + 1;
    /* which attributes' cells have records, and where: those of at most n cells (as many as the
     * rows: the records cost less than the rows' steps without them save), and those of up to
     * record_cells per row whose occupied cells are at most n (the tables may count more rows
     * than these, a part of the training rows: then most cells may be occupied) */
    record_at = malloc((m + 1) * sizeof(int64_t));
    groups = malloc((m + 2) * sizeof(int64_t));
    int64_t n_records = 0, n_groups = 0;
    if (record_at)
        for (int64_t u = 0; u < m; u++) {
            const int64_t F = offsets[u + 1] - offsets[u];
            record_at[u] = -1;
            if (F <= record_cells * n && (n_records + F) * RS <= LOO_RECORD_DOUBLES)
                record_at[u] = n_records, n_records += F;
        }
    records = calloc(n_records * RS + 1, sizeof(double));
    /* the doubles of each attribute's records that rows read: those of its occupied cells */
    occupied = calloc(m + 1, sizeof(int64_t));
    if (record_at && records && occupied) {
        Py_BEGIN_ALLOW_THREADS
        for (int64_t u = 0; u < m; u++) {
            const int64_t F = offsets[u + 1] - offsets[u];
            if (record_at[u] < 0) continue;
            occupied[u] = loo_records(fc_all + offsets[u] * C, pc_all + parent_offsets[u] * C, F,
                                      p.cards[p.families[u * E]], C, inverse_r[u],
                                      p.family_at[u * (E + 1) + 1], F <= n ? F : n,
                                      records + record_at[u] * RS);
            if (occupied[u] < 0) record_at[u] = -1;
        }
        Py_END_ALLOW_THREADS
    }
    /* the groups of attributes, in order, whose tables take at most `group` doubles (an attribute
     * alone may take more): an attribute's records count by its occupied cells, the only ones
     * rows read (its records' address range is mostly untouched pages). Sized by the address
     * range, hailfinder's 55 attributes took 28 groups, each streaming all the rows' scores
     * through memory (192 MB at 10^6 rows, K = 5, three classes: about a third of the pass); by
     * the occupied cells, 3 groups of 2 MB of records read (and the rows go in blocks, below). */
    if (record_at && groups && occupied) {
        int64_t size = 0;
        groups[0] = 0;
        for (int64_t u = 0; u < m; u++) {
            const int64_t F = offsets[u + 1] - offsets[u];
            const int64_t P = parent_offsets[u + 1] - parent_offsets[u];
            const int64_t read = record_at[u] >= 0 ? occupied[u] * RS : (F + P) * C;
            if (u > 0 && size + read > group) groups[++n_groups] = u, size = 0;
            size += read;
        }
        groups[++n_groups] = m;
    }
    /* one group: a chunk's scores are kept only while the chunk is scored; several: every row's
     * scores are kept from one group to the next; an order: a stack of one prefix per level */
    const int64_t R = chunk < n ? chunk : (n > 0 ? n : 1);
    /* several groups: the rows go in blocks, every group per block, so that the block's scores
     * stay in cache from one group to the next instead of streaming all the rows' through memory
     * (and faulting in their pages: 192 MB at 10^6 rows, K = 5, three classes) once per group.
     * Each attribute's total still gains its rows in row order. */
    int64_t B = n_groups > 1 && block_rows > 0 ? (block_rows + R - 1) / R * R : n;
    if (n_groups <= 1) B = R;
    if (B > n) B = n > 0 ? n : 1;
    const int64_t S = use_order ? m + 1 : B;
    buffer = malloc((p.n_used * R + 1) * sizeof(int64_t));
    reached = malloc(S * sizeof(int64_t));
    logs = malloc(S);
    work = malloc((D * C + (C > D ? C : D) + 4 + S * (D * C + D) + (use_order ? S : 0)) *
                  sizeof(double));
    stack_at = malloc(2 * (m + 2) * sizeof(int64_t));
    if (!record_at || !groups || !buffer || !reached || !logs || !work || !records || !stack_at ||
        !occupied) {
        PyErr_NoMemory();
        goto done;
    }
    int bad = 0;
    Py_ssize_t moved = 0;
    Py_BEGIN_ALLOW_THREADS
    double *ratios = work, *scratch = work + D * C;
    double *joints = scratch + ((C > D ? C : D) + 1) / 2 * 2 + 2; /* an even offset */
    double *losses = joints + S * D * C;
    int64_t z[LOO_MAX_DEPTHS], zcards[LOO_MAX_DEPTHS];
    if (use_order) {
        /* level L's prefix (L = 0: the class; L = u + 1: after attribute u) at joints + L D C,
         * losses + L D (not weighted), reached[L], logs[L]; it began at sorted row stack_at[L],
         * weighs weight[L] (its rows' weights, summed in order), and moved[L] says whether it
         * moved to logs at its level. A prefix's losses go to column L of total when it ends. */
        const int64_t *perm = order[0].buf, *level = order[1].buf, U = p.n_used;
        double *weight = losses + S * D;
        int64_t *moved_here = stack_at + (m + 2);
        const char *rows = order[2].buf;
        for (int64_t s = 0; s <= n && !bad; s++) {
            const int64_t from = s < n ? level[s] : 0;
            if (s > 0)
                for (int64_t L = from > 1 ? from : 1; L <= m; L++) {
                    const double *loss = losses + L * D, wL = weight[L];
                    const int64_t hi = reached[L];
                    for (int64_t k = 0; k < D; k++) total[k * M + L] += loss[k < hi ? k : hi] * wL;
                    if (moved_here[L]) moved += s - stack_at[L];
                }
            if (s == n) break;
            const int64_t i = perm[s];
            if (s + 16 < n) /* the class and weight of a row ahead: the order reads them at random */
                __builtin_prefetch(y + perm[s + 16]), __builtin_prefetch(w + perm[s + 16]);
            for (int64_t L = from; L <= m; L++) {
                double *joint = joints + L * D * C, *loss = losses + L * D;
                stack_at[L] = s, moved_here[L] = 0, weight[L] = 0.0;
                if (L == 0) {
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t k = 0; k < D; k++) joint[c * D + k] = prior[i * C + c];
                    loss[0] = start_loss[i], reached[0] = 0, logs[0] = 0;
                    continue;
                }
                const int64_t hi = reached[L - 1];
                for (int64_t e = 0; e < C * D; e++) joint[e] = joint[e - D * C];
                for (int64_t k = 0; k <= hi; k++) loss[k] = loss[k - D];
                reached[L] = hi, logs[L] = logs[L - 1];
                const int64_t u = L - 1, *family = p.families + u * E, depths = p.depths[u];
                for (int64_t d = 0; d < depths; d++) {
                    zcards[d] = p.cards[family[d]];
                    z[d] = loo_code_get(rows, p.size, s * U + p.slot[family[d]]);
                    bad |= z[d] >= zcards[d];
                }
                if (z[0] < 0 || bad) continue;
#define LOO_ORDER_STEP(CLASSES, DEPTHS)                                                                  \
    loo_step(z, zcards, depths, p.family_at + u * (E + 1), p.parent_at + u * (E + 1),             \
             fc_all + offsets[u] * C, pc_all + parent_offsets[u] * C,                             \
             record_at[u] >= 0 ? records + record_at[u] * RS : NULL, inverse_r[u], CLASSES,       \
             DEPTHS, y[i], 1.0, criterion, ratios, joint, loss, reached + L, logs + L, scratch)
                /* two or three classes and K = 5 (SKDB's default): the loops over the classes and
                 * the candidates of constant length, unrolled */
                moved_here[L] = D == 6 && C == 2   ? LOO_ORDER_STEP(2, 6)
                                : D == 6 && C == 3 ? LOO_ORDER_STEP(3, 6)
                                                   : LOO_ORDER_STEP(C, D);
#undef LOO_ORDER_STEP
            }
            for (int64_t L = 1; L <= m; L++) weight[L] += w[i];
        }
    }
    /* 1-byte codes (the encoders' own) are read where they are, checked once here, instead of
     * widened into a chunk's buffer of int64 for every group of attributes */
    const int direct = p.size == 1 && !use_order;
#if LOO_WIDE
    const int wide = direct && vector_step && criterion == 0 && D == 6 && (C == 2 || C == 3) &&
                     __builtin_cpu_supports("avx512f");
#else
    const int wide = 0;
#endif
    if (direct) bad |= loo_codes_over(&p, first, n);
    for (int64_t block = 0; block < n && !bad && !use_order; block += B) {
    const int64_t block_stop = block + B < n ? block + B : n;
    for (int64_t g = 0; g < n_groups && !bad; g++) {
        /* the group's columns: their rows in the chunk's buffer (p.slot), in p.used */
        int64_t n_used = 0;
        for (int64_t j = 0; j < p.k; j++) p.slot[j] = -1;
        for (int64_t u = groups[g]; u < groups[g + 1]; u++)
            for (int64_t d = 0; d < p.depths[u]; d++) {
                const int64_t j = p.families[u * E + d];
                if (p.slot[j] < 0) p.slot[j] = n_used, p.used[n_used++] = j;
            }
        for (int64_t start = block; start < block_stop; start += R) {
            const int64_t stop = start + R < block_stop ? start + R : block_stop, rows = stop - start;
            const int64_t at = start - block; /* the chunk's first row in the block's scores */
            if (!direct && !loo_decode(&p, p.used, n_used, first + start, first + stop, buffer)) {
                bad = 1;
                break;
            }
            if (g == 0)
                for (int64_t i = 0; i < rows; i++) {
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t k = 0; k < D; k++)
                            joints[(at + i) * D * C + c * D + k] = prior[(start + i) * C + c];
                    losses[(at + i) * D] = start_loss[start + i] * w[start + i];
                    reached[at + i] = 0, logs[at + i] = 0;
                }
            for (int64_t u = groups[g]; u < groups[g + 1]; u++) {
                const int64_t *family = p.families + u * E, depths = p.depths[u], column = u + 1;
                const double *fc = fc_all + offsets[u] * C, *pc = pc_all + parent_offsets[u] * C;
                const double *rec = record_at[u] >= 0 ? records + record_at[u] * RS : NULL;
                const int64_t *col[LOO_MAX_DEPTHS];
                const int8_t *col8[LOO_MAX_DEPTHS];
                for (int64_t d = 0; d < depths; d++) {
                    col[d] = buffer + p.slot[family[d]] * rows;
                    col8[d] = (const int8_t *)p.codes + (size_t)(family[d] * p.N + first + start);
                    zcards[d] = p.cards[family[d]];
                }
#define LOO_CHUNK_STEP(CLASSES, DEPTHS)                                                                  \
    loo_step(z, zcards, depths, p.family_at + u * (E + 1), p.parent_at + u * (E + 1), fc, pc, rec, \
             inverse_r[u], CLASSES, DEPTHS, y[start + i], w[start + i], criterion, ratios,        \
             joints + (at + i) * D * C, loss, reached + at + i, logs + at + i, scratch)
#define LOO_CHUNK_ROWS(COL)                                                                        \
    for (int64_t i = 0; i < rows; i++) {                                                         \
        double *loss = losses + (at + i) * D;                                                    \
        if (COL[0][i] >= 0) {                                                                    \
            for (int64_t d = 0; d < depths; d++) z[d] = COL[d][i];                               \
            moved += D == 6 && C == 2   ? LOO_CHUNK_STEP(2, 6)                                   \
                     : D == 6 && C == 3 ? LOO_CHUNK_STEP(3, 6)                                   \
                                        : LOO_CHUNK_STEP(C, D);                                  \
        }                                                                                        \
        const int64_t hi = reached[at + i];                                                      \
        for (int64_t k = 0; k < D; k++) total[k * M + column] += loss[k < hi ? k : hi];          \
    }
                if (wide && rec) {
                    const loo_attribute a = {zcards, p.family_at + u * (E + 1), p.parent_at + u * (E + 1),
                                             fc, pc, rec, inverse_r[u], depths, C, D, criterion,
                                             ratios, scratch};
                    moved += loo_wide_rows(&a, col8, rows, y + start, w + start,
                                           joints + at * D * C, losses + at * D, reached + at,
                                           logs + at, total + column, M);
                } else if (direct) {
                    LOO_CHUNK_ROWS(col8)
                } else {
                    LOO_CHUNK_ROWS(col)
                }
#undef LOO_CHUNK_ROWS
#undef LOO_CHUNK_STEP
            }
        }
    }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "loo_rows: a code is not below its column's categories");
        goto done;
    }
    result = PyLong_FromSsize_t(moved);
done:
    free(buffer), free(reached), free(record_at), free(groups), free(work), free(records);
    free(logs), free(stack_at), free(occupied);
    loo_plan_free(&p);
    if (have_codes) PyBuffer_Release(&codes);
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    for (int j = 0; j < got_order; j++) PyBuffer_Release(&order[j]);
    return result;
}

/* Every family's parent counts N(c, x_parents) at every depth (loo_parent_counts): its table
 * (F, C) summed over the attribute's r values, x = 0 first, one addition after the other (the
 * numpy twin's `out += block[:, x]`, to the last bit). counts (T, C) and parents (P, C) float64,
 * one family after the other from offsets and parent_offsets (m + 1) int64; r (m) int64. In
 * numpy, the strided views of three doubles a row took 45 ms of a 0.8 s fit on 10^5 rows of
 * hailfinder. */
static PyObject *loo_parents(PyObject *self, PyObject *args) {
    PyObject *obj[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4])) return NULL;
    const char *names[5] = {"counts", "offsets", "r", "parents", "parent_offsets"};
    const int kinds[5] = {3, 0, 0, 3 | 8, 0};
    Py_buffer b[5];
    int got = 0;
    PyObject *result = NULL;
    if (!loo_columns(obj, b, &got, "loo_parents", names, 5, kinds)) goto done;
    const int64_t m = b[2].shape[0], C = b[0].shape[1];
    const int64_t *offsets = b[1].buf, *r = b[2].buf, *parent_offsets = b[4].buf;
    const double *counts = b[0].buf;
    double *parents = b[3].buf;
    int ok = b[3].shape[1] == C && b[1].shape[0] == m + 1 && b[4].shape[0] == m + 1 &&
             offsets[0] == 0 && parent_offsets[0] == 0 && offsets[m] == b[0].shape[0] &&
             parent_offsets[m] == b[3].shape[0];
    for (int64_t u = 0; ok && u < m; u++)
        ok = r[u] >= 1 && parent_offsets[u + 1] >= parent_offsets[u] &&
             offsets[u + 1] - offsets[u] == (parent_offsets[u + 1] - parent_offsets[u]) * r[u];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "loo_parents: inconsistent arguments");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t u = 0; u < m; u++) {
        const int64_t P = parent_offsets[u + 1] - parent_offsets[u], ru = r[u];
        const double *fc = counts + offsets[u] * C;
        double *pc = parents + parent_offsets[u] * C;
        for (int64_t q = 0; q < P; q++) {
            const double *block = fc + q * ru * C;
            double *out = pc + q * C;
            for (int64_t c = 0; c < C; c++) out[c] = block[c];
            for (int64_t x = 1; x < ru; x++)
                for (int64_t c = 0; c < C; c++) out[c] += block[x * C + c];
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    return result;
}

/* -- selective KDB's families and pair information -------------------------------------------- */

/* int64 keys to their first-seen positions: open addressing over a power-of-two table at most
 * half full (one map is reset and reused per depth). */
typedef struct {
    int64_t *keys, *vals;
    size_t mask;
    int64_t size;
} key_map;

static void key_map_reset(key_map *map) {
    memset(map->vals, 0xff, (map->mask + 1) * sizeof(int64_t)); /* every slot -1: empty */
    map->size = 0;
}

static inline int64_t key_position(key_map *map, int64_t key) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    size_t s = (size_t)(h ^ (h >> 31)) & map->mask;
    while (map->vals[s] >= 0) {
        if (map->keys[s] == key) return map->vals[s];
        s = (s + 1) & map->mask;
    }
    map->keys[s] = key;
    map->vals[s] = map->size;
    return map->size++;
}

/* Attribute by attribute, depth by depth: a row's parent configuration (its previous one with the
 * next parent's value) and its family (that with the child's value), numbered in order of first
 * appearance among the rows observing the child and those parents, after every earlier
 * (attribute, depth)'s; -1 elsewhere and at depths past the attribute's parents. */
static void family_pass(const int64_t *codes, const int64_t *cards, const int64_t *attributes,
                        int64_t m, int64_t D, int64_t n, int64_t *family, int64_t *parent,
                        int64_t *sizes, key_map *map) {
    int64_t family_start = 0, parent_start = 0;
    for (int64_t u = 0; u < m; u++) {
        const int64_t *columns = attributes + u * D;
        const int64_t *x = codes + columns[0] * n, r = cards[columns[0]];
        int64_t *fam = family + u * D * n, *par = parent + u * D * n;
        int64_t *family_sizes = sizes + u * D, *parent_sizes = sizes + (m + u) * D;
        int64_t d = 0;
        for (; d < D && (d == 0 || columns[d] >= 0); d++) {
            int64_t *f = fam + d * n, *p = par + d * n;
            if (d == 0) {
                int64_t any = 0;
                for (int64_t i = 0; i < n; i++) {
                    p[i] = x[i] >= 0 ? 0 : -1;
                    any |= x[i] >= 0;
                }
                parent_sizes[0] = any;
            } else {
                const int64_t *z = codes + columns[d] * n, card = cards[columns[d]];
                const int64_t *before = par + (d - 1) * n, shift = parent_start - parent_sizes[d - 1];
                key_map_reset(map);
                for (int64_t i = 0; i < n; i++)
                    p[i] = before[i] >= 0 && z[i] >= 0
                               ? key_position(map, (before[i] - shift) * card + z[i])
                               : -1;
                parent_sizes[d] = map->size;
            }
            key_map_reset(map);
            for (int64_t i = 0; i < n; i++)
                f[i] = p[i] >= 0 ? key_position(map, p[i] * r + x[i]) + family_start : -1;
            family_sizes[d] = map->size;
            for (int64_t i = 0; i < n; i++)
                if (p[i] >= 0) p[i] += parent_start;
            family_start += family_sizes[d];
            parent_start += parent_sizes[d];
        }
        for (; d < D; d++) {
            for (int64_t i = 0; i < n; i++) fam[d * n + i] = par[d * n + i] = -1;
            family_sizes[d] = parent_sizes[d] = 0;
        }
    }
}

static PyObject *family_cells(PyObject *self, PyObject *args) {
    PyObject *obj[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4], &obj[5]))
        return NULL;
    /* codes (k, n): each column's codes (-1 missing); cards (k); attributes (m, D): each
     * attribute's column, then its parents' (-1 after the last); family, parent (m, D, n) and
     * sizes (2, m, D) int64, written */
    const char *names[6] = {"codes", "cards", "attributes", "family", "parent", "sizes"};
    const int ndims[6] = {2, 1, 2, 3, 3, 3};
    Py_buffer b[6];
    int got = 0;
    PyObject *result = NULL;
    key_map map = {NULL, NULL, 0, 0};
    for (int k = 0; k < 6; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k >= 3 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) goto done;
        got++;
        const char *f = native_format(b[k].format);
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr("lq", f[0]) || b[k].itemsize != 8 ||
            b[k].ndim != ndims[k]) {
            PyErr_Format(PyExc_TypeError, "family_cells: %s has the wrong type", names[k]);
            goto done;
        }
    }
    const int64_t K = b[0].shape[0], n = b[0].shape[1], m = b[2].shape[0], D = b[2].shape[1];
    const int64_t *codes = b[0].buf, *cards = b[1].buf, *attributes = b[2].buf;
    int ok = D >= 1 && b[1].shape[0] == K && b[3].shape[0] == m && b[3].shape[1] == D &&
             b[3].shape[2] == n && b[4].shape[0] == m && b[4].shape[1] == D && b[4].shape[2] == n &&
             b[5].shape[0] == 2 && b[5].shape[1] == m && b[5].shape[2] == D;
    for (int64_t j = 0; ok && j < K; j++) ok = cards[j] >= 0 && cards[j] < ((int64_t)1 << 31);
    for (int64_t i = 0; ok && i < K * n; i++) ok = codes[i] >= -1 && codes[i] < cards[i / n];
    for (int64_t u = 0; ok && u < m; u++) {
        ok = attributes[u * D] >= 0 && attributes[u * D] < K;
        for (int64_t d = 1, ended = 0; ok && d < D; d++) {
            const int64_t a = attributes[u * D + d];
            ok = a < K && (a >= 0 ? !ended : a == -1);
            ended |= a < 0;
        }
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "family_cells: inconsistent arguments");
        goto done;
    }
    size_t slots = 16;
    while (slots < 2 * (size_t)n) slots <<= 1;
    map.keys = malloc(slots * sizeof(int64_t));
    map.vals = malloc(slots * sizeof(int64_t));
    map.mask = slots - 1;
    if (!map.keys || !map.vals) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    family_pass(codes, cards, attributes, m, D, n, b[3].buf, b[4].buf, b[5].buf, &map);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(map.keys);
    free(map.vals);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* I(X_i; X_j | C) of every pair i < j on the rows observing both (the plug-in estimate, summed
 * in logs: weighted counts near 1e300 would overflow the products), into both triangles. A pair of
 * many-valued columns has far more cells than rows: the pass marks the cells its rows touch in a
 * bitmap and visits only those, in index order, so every sum gains the same terms in the same
 * order as a sweep over all the cells (the skipped ones add 0) at O(n + cells / 64) per pair; a
 * small table is swept whole. joint, row, col and pair are all zero between pairs. */
static void pair_pass(const int64_t *codes, const int64_t *y, const double *w, const int64_t *cards,
                      const int64_t *known, int64_t m, int64_t n, int64_t C, double *cmi,
                      double *rows, double *work, int64_t *key, uint64_t *touched, int64_t *owner,
                      int64_t *class_of) {
    double logs[LOG_TABLE]; /* log k */
    for (int64_t k = 0; k < LOG_TABLE; k++) logs[k] = log((double)k);
    for (int64_t i = 0; i < m; i++) {
        const int64_t *xi = codes + i * n, ri = cards[i];
        double own = 0.0;
        for (int64_t t = 0; t < n; t++) {
            if (xi[t] >= 0) own += w[t];
            key[t] = xi[t] >= 0 ? y[t] * ri + xi[t] : -1; /* row t's (c, a), read by every j */
        }
        rows[i * m + i] = own;
        cmi[i * m + i] = 0.0;
        for (int64_t ca = 0; ca < C * ri; ca++) class_of[ca] = ca / ri;
        for (int64_t j = i + 1; j < m; j++) {
            const int64_t *xj = codes + j * n, rj = cards[j];
            if (known[i] && known[j]) continue; /* the caller has this pair's values */
            if (ri <= 1 || rj <= 1) { /* a column with one state tells nothing: exactly 0 */
                double both = 0.0;
                for (int64_t t = 0; t < n; t++)
                    if (xi[t] >= 0 && xj[t] >= 0) both += w[t];
                cmi[i * m + j] = cmi[j * m + i] = 0.0;
                rows[i * m + j] = rows[j * m + i] = both;
                continue;
            }
            const int64_t cells = C * ri * rj;
            double *joint = work, *row = joint + cells, *col = row + C * ri, *pair = col + C * rj;
            double total = 0.0, weighted = 0.0;
            if (cells <= 2 * n) { /* few cells: a sweep over them all (no divisions) */
                for (int64_t t = 0; t < n; t++)
                    if (key[t] >= 0 && xj[t] >= 0) joint[key[t] * rj + xj[t]] += w[t];
                for (int64_t c = 0; c < C; c++)
                    for (int64_t a = 0; a < ri; a++)
                        for (int64_t b = 0; b < rj; b++) {
                            const double v = joint[(c * ri + a) * rj + b];
                            row[c * ri + a] += v;
                            col[c * rj + b] += v;
                            pair[c] += v;
                        }
                for (int64_t c = 0; c < C; c++) {
                    total += pair[c];
                    pair[c] = log_plus(pair[c], 0.0, logs);
                }
                for (int64_t c = 0; c < C; c++)
                    for (int64_t a = 0; a < ri; a++)
                        for (int64_t b = 0; b < rj; b++) {
                            const double v = joint[(c * ri + a) * rj + b];
                            if (v > 0)
                                weighted += v * (log_plus(v, 0.0, logs) + pair[c] -
                                                 log_plus(row[c * ri + a], 0.0, logs) -
                                                 log_plus(col[c * rj + b], 0.0, logs));
                        }
                memset(work, 0, (cells + C * ri + C * rj + C) * sizeof(double));
            } else {
                const int64_t words = (cells + 63) / 64;
                for (int64_t t = 0; t < n; t++)
                    if (key[t] >= 0 && xj[t] >= 0) {
                        const int64_t cell = key[t] * rj + xj[t];
                        touched[cell >> 6] |= (uint64_t)1 << (cell & 63);
                        owner[cell] = key[t]; /* its (c, a): no division to find it again */
                        joint[cell] += w[t];
                    }
                for (int64_t s = 0; s < words; s++)
                    for (uint64_t bits = touched[s]; bits; bits &= bits - 1) {
                        const int64_t cell = s * 64 + lowest_bit(bits), ca = owner[cell];
                        const double v = joint[cell];
                        row[ca] += v;
                        col[class_of[ca] * rj + cell - ca * rj] += v;
                        pair[class_of[ca]] += v;
                    }
                for (int64_t c = 0; c < C; c++) {
                    total += pair[c];
                    pair[c] = log_plus(pair[c], 0.0, logs);
                }
                for (int64_t s = 0; s < words; s++)
                    for (uint64_t bits = touched[s]; bits; bits &= bits - 1) {
                        const int64_t cell = s * 64 + lowest_bit(bits), ca = owner[cell];
                        const int64_t c = class_of[ca], cb = c * rj + cell - ca * rj;
                        const double v = joint[cell];
                        if (v > 0)
                            weighted += v * (log_plus(v, 0.0, logs) + pair[c] -
                                             log_plus(row[ca], 0.0, logs) -
                                             log_plus(col[cb], 0.0, logs));
                    }
                for (int64_t s = 0; s < words; s++) {
                    for (uint64_t bits = touched[s]; bits; bits &= bits - 1) {
                        const int64_t cell = s * 64 + lowest_bit(bits), ca = owner[cell];
                        joint[cell] = row[ca] = col[class_of[ca] * rj + cell - ca * rj] = 0.0;
                    }
                    touched[s] = 0;
                }
                memset(pair, 0, C * sizeof(double));
            }
            double value = total > 0 ? weighted / total : 0.0;
            if (!(value > 0)) value = 0.0; /* rounding can leave -1e-17 where the value is 0 */
            cmi[i * m + j] = cmi[j * m + i] = value;
            rows[i * m + j] = rows[j * m + i] = total;
        }
    }
}

static PyObject *pair_information(PyObject *self, PyObject *args) {
    PyObject *obj[7];
    long long n_classes;
    if (!PyArg_ParseTuple(args, "OOOOLOOO", &obj[0], &obj[1], &obj[2], &obj[3], &n_classes,
                          &obj[4], &obj[5], &obj[6]))
        return NULL;
    /* codes (m, n) int64 (-1 missing); y (n) int64; weights (n) float64; cards (m) int64;
     * cmi, rows (m, m) float64, written (but for the pairs of two known columns); known (m) int64,
     * nonzero: a column whose pairs with the other known ones are left as they are */
    const char *names[7] = {"codes", "y", "weights", "cards", "cmi", "rows", "known"};
    const int ndims[7] = {2, 1, 1, 1, 2, 2, 1};
    Py_buffer b[7];
    int got = 0;
    PyObject *result = NULL;
    double *work = NULL;
    int64_t *key = NULL;
    uint64_t *touched = NULL;
    int64_t *owner = NULL, *class_of = NULL;
    for (int k = 0; k < 7; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 4 || k == 5 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) goto done;
        got++;
        const char *f = native_format(b[k].format);
        const char *want = (k == 2 || k == 4 || k == 5) ? "d" : "lq";
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr(want, f[0]) || b[k].itemsize != 8 ||
            b[k].ndim != ndims[k]) {
            PyErr_Format(PyExc_TypeError, "pair_information: %s has the wrong type", names[k]);
            goto done;
        }
    }
    const int64_t m = b[0].shape[0], n = b[0].shape[1], C = n_classes;
    const int64_t *codes = b[0].buf, *y = b[1].buf, *cards = b[3].buf;
    int ok = C >= 1 && b[1].shape[0] == n && b[2].shape[0] == n && b[3].shape[0] == m &&
             b[4].shape[0] == m && b[4].shape[1] == m && b[5].shape[0] == m && b[5].shape[1] == m &&
             b[6].shape[0] == m;
    int64_t widest = 0, second = 0; /* a pair's table: at most C times the two widest */
    for (int64_t j = 0; ok && j < m; j++) {
        ok = cards[j] >= 0 && cards[j] < ((int64_t)1 << 31);
        if (ok && cards[j] > widest) {
            second = widest;
            widest = cards[j];
        } else if (ok && cards[j] > second)
            second = cards[j];
    }
    for (int64_t t = 0; ok && t < n; t++) ok = y[t] >= 0 && y[t] < C;
    for (int64_t t = 0; ok && t < m * n; t++) ok = codes[t] >= -1 && codes[t] < cards[t / n];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "pair_information: inconsistent arguments");
        goto done;
    }
    const size_t most = (size_t)(C * widest * second); /* the largest pair table's cells */
    work = calloc(most + (size_t)(C * (widest + second) + 2 * C), sizeof(double));
    key = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    touched = calloc(most / 64 + 1, sizeof(uint64_t));
    owner = malloc((most + 1) * sizeof(int64_t));
    class_of = malloc((size_t)(C * widest + 1) * sizeof(int64_t));
    if (!work || !key || !touched || !owner || !class_of) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    pair_pass(codes, y, b[2].buf, cards, b[6].buf, m, n, C, b[4].buf, b[5].buf, work, key, touched,
              owner, class_of);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(work);
    free(key);
    free(touched);
    free(owner);
    free(class_of);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* Selective KDB's families of one row (bnclassify/_native/selection.py, lone_families): -1 for each family
 * below depth 0 of a single row of weight at most 1, then the families left and the parent
 * configurations they have renumbered from 0 in the order of their numbers, the other rows'
 * parent configurations -1. */
static int lone_pass(int64_t *family, int64_t *parent, const double *w, int64_t m, int64_t D,
                     int64_t n, int64_t F, int64_t P, int64_t *out) {
    int64_t *rows = calloc(F + 1, sizeof(int64_t)), *fam_new = malloc((F + 1) * sizeof(int64_t));
    int64_t *par_new = malloc((P + 1) * sizeof(int64_t));
    if (!rows || !fam_new || !par_new) {
        free(rows), free(fam_new), free(par_new);
        return -1;
    }
    const int64_t cells = m * D * n;
    for (int64_t e = 0; e < cells; e++)
        if (family[e] >= 0) rows[family[e]]++;
    for (int64_t ud = 0; ud < m * D; ud++) {
        int64_t *f = family + ud * n;
        if (ud % D == 0) continue; /* depth 0 */
        for (int64_t i = 0; i < n; i++)
            if (f[i] >= 0 && rows[f[i]] == 1 && w[i] <= 1.0) f[i] = -1;
    }
    /* used ones first (0), then numbered in the order of their old numbers */
    for (int64_t f = 0; f < F; f++) fam_new[f] = -1;
    for (int64_t q = 0; q < P; q++) par_new[q] = -1;
    for (int64_t e = 0; e < cells; e++)
        if (family[e] >= 0) fam_new[family[e]] = par_new[parent[e]] = 0;
    int64_t n_families = 0, n_parents = 0;
    for (int64_t f = 0; f < F; f++)
        if (fam_new[f] == 0) fam_new[f] = n_families++;
    for (int64_t q = 0; q < P; q++)
        if (par_new[q] == 0) par_new[q] = n_parents++;
    for (int64_t e = 0; e < cells; e++) {
        if (family[e] >= 0) family[e] = fam_new[family[e]];
        if (parent[e] >= 0) parent[e] = par_new[parent[e]];
    }
    out[0] = n_families, out[1] = n_parents;
    free(rows), free(fam_new), free(par_new);
    return 0;
}

static PyObject *lone_families(PyObject *self, PyObject *args) {
    PyObject *obj[3];
    long long F, P;
    if (!PyArg_ParseTuple(args, "OOOLL", &obj[0], &obj[1], &obj[2], &F, &P)) return NULL;
    /* family, parent (m, D, n) int64, rewritten; weights (n) float64; F, P: their numbers */
    const char *names[3] = {"family", "parent", "weights"};
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    for (int k = 0; k < 3; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k < 2 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) goto done;
        got++;
        const char *f = native_format(b[k].format);
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr(k < 2 ? "lq" : "d", f[0]) ||
            b[k].itemsize != 8 || b[k].ndim != (k < 2 ? 3 : 1)) {
            PyErr_Format(PyExc_TypeError, "lone_families: %s has the wrong type", names[k]);
            goto done;
        }
    }
    const int64_t m = b[0].shape[0], D = b[0].shape[1], n = b[0].shape[2];
    int64_t *family = b[0].buf, *parent = b[1].buf, sizes[2];
    int ok = D >= 1 && F >= 0 && P >= 0 && b[1].shape[0] == m && b[1].shape[1] == D &&
             b[1].shape[2] == n && b[2].shape[0] == n;
    for (int64_t e = 0; ok && e < m * D * n; e++)
        ok = family[e] >= -1 && family[e] < F && parent[e] >= -1 && parent[e] < P &&
             (family[e] < 0 || parent[e] >= 0);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "lone_families: inconsistent arguments");
        goto done;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = lone_pass(family, parent, b[2].buf, m, D, n, F, P, sizes);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("LL", (long long)sizes[0], (long long)sizes[1]);
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

static PyObject *cell_counts(PyObject *self, PyObject *args) {
    PyObject *obj[4];
    if (!PyArg_ParseTuple(args, "OOOO", &obj[0], &obj[1], &obj[2], &obj[3])) return NULL;
    /* cells (k, n) int64 (-1: none); y (n) int64; weights (n) float64; counts (F, C) float64,
     * added to: counts[cells[e], y[i]] += weights[i], the entries in order */
    const char *names[4] = {"cells", "y", "weights", "counts"};
    Py_buffer b[4];
    int got = 0;
    PyObject *result = NULL;
    for (int k = 0; k < 4; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 3 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) goto done;
        got++;
        const char *f = native_format(b[k].format);
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr(k < 2 ? "lq" : "d", f[0]) ||
            b[k].itemsize != 8 || b[k].ndim != (k == 0 || k == 3 ? 2 : 1)) {
            PyErr_Format(PyExc_TypeError, "cell_counts: %s has the wrong type", names[k]);
            goto done;
        }
    }
    const int64_t k = b[0].shape[0], n = b[0].shape[1], F = b[3].shape[0], C = b[3].shape[1];
    const int64_t *cells = b[0].buf, *y = b[1].buf;
    const double *w = b[2].buf;
    double *counts = b[3].buf;
    int ok = b[1].shape[0] == n && b[2].shape[0] == n;
    for (int64_t e = 0; ok && e < k * n; e++) ok = cells[e] < F;
    for (int64_t i = 0; ok && i < n; i++) ok = y[i] >= 0 && y[i] < C;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "cell_counts: inconsistent arguments");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t row = 0; row < k; row++)
        for (int64_t i = 0; i < n; i++) {
            const int64_t cell = cells[row * n + i];
            if (cell >= 0) counts[cell * C + y[i]] += w[i];
        }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- tree_pivots ----------------------------------------------------------------------------- */

/* The pivots of the cancellation-free Gaussian elimination (Grassmann, Taksar and Heyman) of
 * nodes 1 .. m-1 of each of a batch of column-scaled weight matrices (see
 * bnclassify/spanning_trees.py, which takes their logs for the sum over spanning trees): pivot k
 * is the sum of column k's remaining off-diagonal weights, so only positive numbers are added.
 * The matrices (batch, m, m), C-contiguous float64, are eliminated in place; pivots (batch,
 * m - 1). A pivot below `smallest` is recorded but divides as 1 (the caller redoes such a matrix
 * in log space), exactly as the numpy version does; the same products and sums, in one pass
 * over each matrix instead of one numpy call per pivot over the whole batch. */
static void tree_pivots_one(double *a, int64_t m, double smallest, double *pivots) {
    for (int64_t k = 1; k < m; k++) {
        double pivot = a[k];
        for (int64_t i = k + 1; i < m; i++) pivot += a[i * m + k];
        pivots[k - 1] = pivot;
        const double safe = pivot >= smallest ? pivot : 1.0;
        const double *row = a + k * m;
        for (int64_t i = 0; i < m; i = (i == 0 ? k + 1 : i + 1)) {
            double *target = a + i * m;
            const double factor = target[k] / safe;
            for (int64_t j = k + 1; j < m; j++) target[j] += factor * row[j];
        }
    }
}

static PyObject *tree_pivots(PyObject *self, PyObject *args) {
    PyObject *matrices_obj, *pivots_obj;
    double smallest;
    if (!PyArg_ParseTuple(args, "OOd", &matrices_obj, &pivots_obj, &smallest)) return NULL;
    Py_buffer a, p;
    if (PyObject_GetBuffer(matrices_obj, &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(pivots_obj, &p, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    const char *fa = native_format(a.format), *fp = native_format(p.format);
    int ok = fa && fp && strcmp(fa, "d") == 0 && strcmp(fp, "d") == 0 && a.ndim == 3 &&
             p.ndim == 2 && a.shape[1] == a.shape[2] && a.shape[1] >= 2 && p.shape[0] == a.shape[0] &&
             p.shape[1] == a.shape[1] - 1;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "tree_pivots: (batch, m, m) and (batch, m - 1) float64");
        PyBuffer_Release(&a);
        PyBuffer_Release(&p);
        return NULL;
    }
    const int64_t batch = a.shape[0], m = a.shape[1];
    Py_BEGIN_ALLOW_THREADS
    for (int64_t b = 0; b < batch; b++)
        tree_pivots_one((double *)a.buf + b * m * m, m, smallest, (double *)p.buf + b * (m - 1));
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&a);
    PyBuffer_Release(&p);
    Py_RETURN_NONE;
}

/* -- tree_log_sums -------------------------------------------------------------------------- */

/* Vectorised twice (SSE2 and AVX2, chosen at load) where GCC can dispatch on the CPU: the same
 * products and sums in the same order (no fused multiply-add), so both give identical results. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WIDE_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_VECTORS
#endif

/* The elimination of tree_pivots_one, four pivots per pass over the trailing matrix (a quarter
 * of the memory traffic). Steps k .. k+3 are first applied to the panel they read (columns
 * k+1 .. k+3 and rows k+1 .. k+3), one step after the other; then every other entry gets the four
 * updates at once, as (((a + f0 r0) + f1 r1) + f2 r2) + f3 r3: what the four steps one after the
 * other compute, so the pivots are the same numbers. `factors` holds 4 m doubles. Returns the
 * sum of the pivots' logs; *low is set when a pivot is below `smallest` or not finite (the
 * caller redoes that matrix in log space). */
#define PANEL 4
WIDE_VECTORS
static double tree_log_sum_one(double *a, int64_t m, double smallest, double *factors, int *low) {
    double total = 0.0;
    for (int64_t k = 1; k < m; k += PANEL) {
        const int64_t width = m - k < PANEL ? m - k : PANEL, end = k + width;
        for (int64_t q = 0; q < width; q++) {
            const int64_t kk = k + q;
            double *f = factors + q * m;
            const double *row = a + kk * m;
            double p = a[kk];
            for (int64_t i = kk + 1; i < m; i++) p += a[i * m + kk];
            if (!(p >= smallest && p <= DBL_MAX)) *low = 1;
            total += log(p);
            const double s = p >= smallest ? p : 1.0;
            for (int64_t i = 0; i < m; i = (i == 0 ? kk + 1 : i + 1)) {
                f[i] = a[i * m + kk] / s;
                for (int64_t j = kk + 1; j < end; j++) a[i * m + j] += f[i] * row[j];
            }
            for (int64_t i = kk + 1; i < end; i++)
                for (int64_t j = end; j < m; j++) a[i * m + j] += f[i] * row[j];
        }
        if (end >= m) break;
        const double *restrict r0 = a + k * m, *restrict r1 = r0 + m, *restrict r2 = r1 + m,
                               *restrict r3 = r2 + m;
        const double *f0 = factors, *f1 = f0 + m, *f2 = f1 + m, *f3 = f2 + m;
        for (int64_t i = 0; i < m; i = (i == 0 ? end : i + 1)) {
            double *restrict t = a + i * m;
            if (width == PANEL) {
                const double g0 = f0[i], g1 = f1[i], g2 = f2[i], g3 = f3[i];
                for (int64_t j = end; j < m; j++)
                    t[j] = t[j] + g0 * r0[j] + g1 * r1[j] + g2 * r2[j] + g3 * r3[j];
            } else {
                for (int64_t q = 0; q < width; q++) {
                    const double g = factors[q * m + i], *restrict r = r0 + q * m;
                    for (int64_t j = end; j < m; j++) t[j] += g * r[j];
                }
            }
        }
    }
    return total;
}

/* tree_log_sum_one for a matrix that is symmetric but for the column scaling: a[u, v] =
 * W[u, v] / t_v with W symmetric (an undirected graph's weights; its Schur complements stay
 * symmetric), scale[k, j] = t_k / t_j. Only row 0 (the root's) and the strict lower triangle
 * are kept, stored by column: b[j * m + i] = a[i, j] for i > j, and b[j * m] = a[0, j], so
 * that column j is contiguous. Step k's column gives the pivot and the factors f_i = a[i, k] / p
 * as in the general version, and its row a[k, j] = W[k, j] / t_j = a[j, k] scale[k, j] (j > k);
 * entry (i, j), i > j, then gets f_i * row_j. Half the multiply-adds (m^3 / 6), the same panels
 * of four steps and the same order of sums per entry as the general version (each pivot in four
 * running sums). The caller passes only matrices whose scales t spread little (scale within the
 * float range with room to spare), or scales whose flushed numbers it has bounded
 * (bnclassify/spanning_trees.py, bottleneck_error): a row entry rebuilt from a flushed column
 * entry then stays below any pivot that matters.
 * `work` holds 8 m doubles (four steps' factors, then their rows). */
WIDE_VECTORS
static double symmetric_tree_log_sum_one(double *b, int64_t m, const double *scale,
                                         double smallest, double *work, int *low) {
    double total = 0.0;
    double *factors = work, *rows = work + PANEL * m;
    for (int64_t k = 1; k < m; k += PANEL) {
        const int64_t width = m - k < PANEL ? m - k : PANEL, end = k + width;
        for (int64_t q = 0; q < width; q++) {
            const int64_t kk = k + q;
            double *f = factors + q * m, *g = rows + q * m;
            const double *sk = scale + kk * m, *column = b + kk * m;
            /* four running sums, not one chain of dependent additions */
            double p0 = column[0], p1 = 0.0, p2 = 0.0, p3 = 0.0;
            int64_t i = kk + 1;
            for (; i + 4 <= m; i += 4) {
                p0 += column[i];
                p1 += column[i + 1];
                p2 += column[i + 2];
                p3 += column[i + 3];
            }
            for (; i < m; i++) p0 += column[i];
            const double p = (p0 + p1) + (p2 + p3);
            if (!(p >= smallest && p <= DBL_MAX)) *low = 1;
            total += log(p);
            const double s = p >= smallest ? p : 1.0;
            f[0] = column[0] / s;
            for (int64_t i = kk + 1; i < m; i++) {
                f[i] = column[i] / s;
                g[i] = column[i] * sk[i];
            }
            /* this step on the panel's later columns, which the next steps read */
            for (int64_t j = kk + 1; j < end; j++) {
                double *restrict t = b + j * m;
                const double x = g[j];
                t[0] += f[0] * x;
                for (int64_t i = j + 1; i < m; i++) t[i] += f[i] * x;
            }
        }
        if (end >= m) break;
        /* width == PANEL: the four steps on every later column, two columns at a time (one
         * load of the factors serves both; each entry's sums in the same order) */
        const double *restrict f0 = factors, *restrict f1 = f0 + m, *restrict f2 = f1 + m,
                               *restrict f3 = f2 + m;
        const double *r0 = rows, *r1 = r0 + m, *r2 = r1 + m, *r3 = r2 + m;
        int64_t j = end;
        for (; j < m; j += 2) {
            double *restrict t = b + j * m;
            const double x0 = r0[j], x1 = r1[j], x2 = r2[j], x3 = r3[j];
            t[0] = t[0] + f0[0] * x0 + f1[0] * x1 + f2[0] * x2 + f3[0] * x3;
            if (j + 1 == m) break;
            double *restrict u = t + m;
            const double y0 = r0[j + 1], y1 = r1[j + 1], y2 = r2[j + 1], y3 = r3[j + 1];
            u[0] = u[0] + f0[0] * y0 + f1[0] * y1 + f2[0] * y2 + f3[0] * y3;
            t[j + 1] = t[j + 1] + f0[j + 1] * x0 + f1[j + 1] * x1 + f2[j + 1] * x2 +
                       f3[j + 1] * x3;
            for (int64_t i = j + 2; i < m; i++) {
                const double e0 = f0[i], e1 = f1[i], e2 = f2[i], e3 = f3[i];
                t[i] = t[i] + e0 * x0 + e1 * x1 + e2 * x2 + e3 * x3;
                u[i] = u[i] + e0 * y0 + e1 * y1 + e2 * y2 + e3 * y3;
            }
        }
    }
    return total;
}

/* tree_log_sum_one for symmetric weights scaled by pairs rather than by columns: a[u, v] =
 * W[u, v] / beta(u, v), beta the widest-path bottleneck between u and v (the smallest weight on
 * the path of the maximum spanning tree; an ultrametric, computed by the caller in log space).
 * Every entry is then at most a few times 1 however far the weights spread (thousands of nats
 * on tens of thousands of rows, where one scale per column underflows: an edge negligible
 * beside one end's strongest weight can be the largest left at the other end), and stays so
 * through the elimination (a Schur complement's weight is at most the effective conductance,
 * below m^2 beta). The caller's tables: mu[k * m + i] = beta(i, k) / B_k, with B_k the largest
 * beta(i, k) over the nodes i left at step k (row 0 and i > k), so that pivot k (the degree
 * of node k in the Schur complement over B_k, at least 1 / m: the widest path to a node left
 * has at most m edges each at least B_k) is sum_i a[i, k] mu[k, i]; and pairs[(k * m + j) * m
 * + i] = beta(i, k) beta(k, j) / (B_k beta(i, j)), at most 1 (ultrametric), the factor that
 * turns step k's product a[i, k] a[k, j] / pivot into units of beta(i, j). Only row 0 and
 * the strict lower triangle are kept, by column as in symmetric_tree_log_sum_one (the
 * matrix is symmetric, with no scale ratio: row k is column k); the sum of the pivots' logs
 * lacks sum_k log B_k, which the caller adds. `work` holds 4 m doubles. */
WIDE_VECTORS
static double pair_tree_log_sum_one(double *b, int64_t m, const double *mu, const double *pairs,
                                    double smallest, double *work, int *low) {
    double total = 0.0;
    double *factors = work;
    for (int64_t k = 1; k < m; k += PANEL) {
        const int64_t width = m - k < PANEL ? m - k : PANEL, end = k + width;
        for (int64_t q = 0; q < width; q++) {
            const int64_t kk = k + q;
            double *f = factors + q * m;
            const double *column = b + kk * m, *muk = mu + kk * m;
            double p = column[0] * muk[0];
            for (int64_t i = kk + 1; i < m; i++) p += column[i] * muk[i];
            if (!(p >= smallest && p <= DBL_MAX)) *low = 1;
            total += log(p);
            const double s = p >= smallest ? p : 1.0;
            f[0] = column[0] / s;
            for (int64_t i = kk + 1; i < m; i++) f[i] = column[i] / s;
            /* this step on the panel's later columns, which the next steps read */
            for (int64_t j = kk + 1; j < end; j++) {
                double *restrict t = b + j * m;
                const double x = column[j], *restrict r = pairs + (kk * m + j) * m;
                t[0] += f[0] * x * r[0];
                for (int64_t i = j + 1; i < m; i++) t[i] += f[i] * x * r[i];
            }
        }
        if (end >= m) break;
        /* width == PANEL: the four steps on every later column, each entry's sums in order */
        const double *restrict f0 = factors, *restrict f1 = f0 + m, *restrict f2 = f1 + m,
                               *restrict f3 = f2 + m;
        const double *c0 = b + k * m, *c1 = c0 + m, *c2 = c1 + m, *c3 = c2 + m;
        for (int64_t j = end; j < m; j++) {
            double *restrict t = b + j * m;
            const double x0 = c0[j], x1 = c1[j], x2 = c2[j], x3 = c3[j];
            const double *restrict r0 = pairs + (k * m + j) * m, *restrict r1 = r0 + m * m,
                                   *restrict r2 = r1 + m * m, *restrict r3 = r2 + m * m;
            t[0] = t[0] + f0[0] * x0 * r0[0] + f1[0] * x1 * r1[0] + f2[0] * x2 * r2[0] +
                   f3[0] * x3 * r3[0];
            for (int64_t i = j + 1; i < m; i++)
                t[i] = t[i] + f0[i] * x0 * r0[i] + f1[i] * x1 * r1[i] + f2[i] * x2 * r2[i] +
                       f3[i] * x3 * r3[i];
        }
    }
    return total;
}

/* For each row r and class c: the column-scaled weights a[u, v] = base[u, v] *
 * ratio[c, cells[r, c, u], cells[r, c, v]] + fill[u, v] (cells (n, 1, m): the same cells
 * for every class, cells[r, 0]) built in a scratch matrix and
 * eliminated (tree_log_sum_one): out[r, c] the sum of the pivots' logs, low[r, c] = 1 when the
 * matrix needs the log-space elimination. BMATAN's average over all trees of one row and class,
 * without the (rows, classes, m, m) stack numpy needs (see bnclassify/spanning_trees.py). With
 * `scale` (m, m) rather than None, the weights are symmetric but for the column scaling
 * (symmetric_tree_log_sum_one); with `mu` (m, m) and `pairs` (m, m, m) rather than None, they
 * are symmetric and scaled by pairs (pair_tree_log_sum_one; base and fill hold W / beta). In
 * both symmetric modes only row 0 and the lower triangle are built, by column, and
 * eliminated; the ratio table must then be symmetric (read as ratio[c, cells[v], cells[u]]). */
static PyObject *tree_log_sums(PyObject *self, PyObject *args) {
    PyObject *objs[9];
    double smallest;
    if (!PyArg_ParseTuple(args, "OOOOdOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &smallest,
                          &objs[4], &objs[5], &objs[6], &objs[7], &objs[8]))
        return NULL;
    Py_buffer v[9];
    const char *formats[9] = {"q", "d", "d", "d", "d", "B", "d", "d", "d"};
    const int ndims[9] = {3, 3, 2, 2, 2, 2, 2, 2, 3};
    /* which optional buffers: scale (the symmetric elimination), mu and pairs (by pairs) */
    const int with_scale = objs[6] != Py_None, with_pairs = objs[7] != Py_None;
    int n_got = 0, ok = 1;
    if (with_scale == with_pairs && with_scale) ok = 0;
    if (with_pairs != (objs[8] != Py_None)) ok = 0;
    for (int k = 0; ok == 1 && k < 9; k++) {
        if ((k == 6 && !with_scale) || (k >= 7 && !with_pairs)) continue;
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 4 || k == 5 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objs[k], &v[k], flags) < 0) {
            ok = -1;
            break;
        }
        n_got = k + 1;
        const char *f = native_format(v[k].format);
        const char *want = formats[k];
        int same = f && (strcmp(f, want) == 0 || (want[0] == 'q' && strcmp(f, "l") == 0 &&
                                                  v[k].itemsize == 8));
        if (!same || v[k].ndim != ndims[k]) ok = 0;
    }
    if (ok == 1) {
        const Py_ssize_t *cs = v[0].shape, *rs = v[1].shape;
        const Py_ssize_t m = cs[2];
        ok = m >= 2 && (cs[1] == rs[0] || cs[1] == 1) && rs[1] == rs[2] && v[2].shape[0] == m &&
             v[2].shape[1] == m && v[3].shape[0] == m && v[3].shape[1] == m &&
             v[4].shape[0] == cs[0] && v[4].shape[1] == rs[0] && v[5].shape[0] == cs[0] &&
             v[5].shape[1] == rs[0] && (!with_scale || (v[6].shape[0] == m && v[6].shape[1] == m)) &&
             (!with_pairs || (v[7].shape[0] == m && v[7].shape[1] == m && v[8].shape[0] == m &&
                              v[8].shape[1] == m && v[8].shape[2] == m));
    }
    if (ok == 0)
        PyErr_SetString(PyExc_ValueError,
                        "tree_log_sums: cells (n, C, m) or (n, 1, m) int64, ratio (C, S, S), base "
                        "and fill (m, m) float64, out (n, C) float64, low (n, C) uint8, then either scale "
                        "(m, m) float64 or mu (m, m) and pairs (m, m, m) float64 (or None)");
    double *scratch = NULL;
    if (ok == 1) {
        const int64_t m = v[0].shape[2];
        /* the matrix, the elimination's work, and for the symmetric ones base and fill
         * transposed (their matrix is stored by column) */
        scratch = malloc(sizeof(double) * (size_t)(3 * m * m + 2 * PANEL * m));
        if (!scratch) {
            PyErr_NoMemory();
            ok = -1;
        }
    }
    if (ok == 1) {
        const int64_t n = v[0].shape[0], n_classes = v[1].shape[0], m = v[0].shape[2];
        const int64_t states = v[1].shape[1], per_class = v[0].shape[1] == n_classes;
        const int64_t *cells = (const int64_t *)v[0].buf;
        const double *ratio = (const double *)v[1].buf, *base = (const double *)v[2].buf,
                     *fill = (const double *)v[3].buf;
        double *out = (double *)v[4].buf;
        uint8_t *low = (uint8_t *)v[5].buf;
        const double *scale = with_scale ? (const double *)v[6].buf : NULL;
        const double *mu = with_pairs ? (const double *)v[7].buf : NULL;
        const double *pairs = with_pairs ? (const double *)v[8].buf : NULL;
        const int by_column = with_scale || with_pairs;
        double *base_t = scratch + m * m + 2 * PANEL * m, *fill_t = base_t + m * m;
        for (int64_t u = 0; by_column && u < m; u++)
            for (int64_t w = 0; w < m; w++) {
                base_t[w * m + u] = base[u * m + w];
                fill_t[w * m + u] = fill[u * m + w];
            }
        int bad_cell = 0;
        Py_BEGIN_ALLOW_THREADS
#if defined(__SSE2__)
        /* Subnormal numbers (a weight far below its column's largest, times ratios) cost tens of
         * cycles each on x86 (5-18% of arrhythmia's time): read and written as 0 during this
         * loop only, in this thread's control register, restored below. Such a number is below
         * 2.3e-308 while every number is added to positive ones only and a pivot used is at
         * least `smallest` (1e-200): it could change no pivot by a relative 1e-100. */
        const unsigned int saved_csr = _mm_getcsr();
        _mm_setcsr(saved_csr | 0x8040); /* flush to zero (0x8000), denormals are zero (0x0040) */
#endif
        /* class by class: one class's ratios (S x S) stay in cache while its rows are built */
        for (int64_t step = 0; step < n * n_classes && !bad_cell; step++) {
            const int64_t c = step / n, rc = (step % n) * n_classes + c;
            const int64_t *cell = cells + (per_class ? rc : step % n) * m;
            const double *table = ratio + c * states * states;
            for (int64_t u = 0; u < m; u++)
                if (cell[u] < 0 || cell[u] >= states) bad_cell = 1;
            if (bad_cell) break;
            if (by_column) /* row 0 and the lower triangle, by column (ratio symmetric) */
                for (int64_t w = 1; w < m; w++) {
                    const double *rw = table + cell[w] * states;
                    const double *bw = base_t + w * m, *fw = fill_t + w * m;
                    double *aw = scratch + w * m;
                    aw[0] = bw[0] * rw[cell[0]] + fw[0];
                    for (int64_t u = w + 1; u < m; u++) aw[u] = bw[u] * rw[cell[u]] + fw[u];
                }
            else
                for (int64_t u = 0; u < m; u++) {
                    const double *ru = table + cell[u] * states;
                    const double *bu = base + u * m, *fu = fill + u * m;
                    double *au = scratch + u * m;
                    for (int64_t w = 0; w < m; w++) au[w] = bu[w] * ru[cell[w]] + fu[w];
                }
            int flag = 0;
            double *work = scratch + m * m;
            out[rc] = with_pairs  ? pair_tree_log_sum_one(scratch, m, mu, pairs, smallest, work, &flag)
                      : scale     ? symmetric_tree_log_sum_one(scratch, m, scale, smallest, work, &flag)
                                  : tree_log_sum_one(scratch, m, smallest, work, &flag);
            low[rc] = (uint8_t)flag;
        }
#if defined(__SSE2__)
        _mm_setcsr(saved_csr);
#endif
        Py_END_ALLOW_THREADS
        if (bad_cell) {
            PyErr_SetString(PyExc_ValueError, "tree_log_sums: a cell outside [0, S)");
            ok = 0;
        }
    }
    free(scratch);
    for (int k = 0; k < n_got; k++)
        if (!((k == 6 && !with_scale) || (k >= 7 && !with_pairs))) PyBuffer_Release(&v[k]);
    if (ok != 1) return NULL;
    Py_RETURN_NONE;
}

/* -- aode_block ----------------------------------------------------------------------------- */

/* The averaged one-dependence estimators' joint, a block of super-parents at a time
 * (bnclassify/classifiers/_aode.py): for every row, each super-parent's score
 *     sp_table[a, c] + sum over the row's children u of table[a, u, c]
 * at the row's category a of it (all of its categories, log-sum-exp'd, where it is missing and
 * marginalize is set), and the eligible ones' weighted sum of exp(score) merged into a running
 * log-sum-exp (top, total) per row and class. The classes are padded to a multiple of 4 (P): a
 * child's numbers are whole vectors, read in one load each where the CPU has AVX2. */

/* Four doubles (the classes c..c+3 of a table row), read and written at any 8-byte address: GCC's
 * vector extension, one AVX register in the AVX2 build, two SSE2 ones otherwise. */
#if defined(__GNUC__) /* GCC's and clang's vector extension; elsewhere, the numpy version runs */
#if !defined(__clang__)
/* the vector helpers below are always inlined: no function passes a vector by value */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef double v4d __attribute__((vector_size(32), aligned(8), may_alias));
typedef int64_t v4i __attribute__((vector_size(32), aligned(8), may_alias));
#define V4(p) (*(const v4d *)(p))

/* Eight doubles: two super-parents' scores of four classes side by side, where the classes
 * are four (one AVX-512 register; two AVX registers or four SSE2 ones elsewhere) */
typedef double v8d __attribute__((vector_size(64), aligned(8), may_alias));
typedef int64_t v8i __attribute__((vector_size(64), aligned(8), may_alias));

#define AODE_SELECT(NAME, VD, VI)                                                                \
    static inline __attribute__((always_inline)) VD NAME(VI mask, VD a, VD b) {                  \
        return (VD)((mask & (VI)a) | (~mask & (VI)b));                                           \
    }
AODE_SELECT(v4_select, v4d, v4i)
AODE_SELECT(v8_select, v8d, v8i)

/* exp(x) for x <= 0 (-inf included; x > 0 is read as 0) to a few ulp, without branches: 2^k
 * times a degree-13 Taylor polynomial of exp(r), r = x - k ln 2, |r| <= ln 2 / 2 (its remainder
 * below 5e-18 relative). Below -708 (exp under 3e-308, where 2^k would leave the normal
 * numbers): 0, which changes no sum holding a term exp(0) = 1 by more than a relative 1e-300.
 * The same operations on four doubles and on eight. */
#define AODE_EXP(NAME, VD, VI, SELECT)                                                           \
    static inline __attribute__((always_inline)) VD NAME(VD x) {                                 \
        const double shifter = 0x1.8p52 + 1023.0, log2e = 0x1.71547652b82fep0;                   \
        const double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;              \
        const VD zero = {0.0}, low = zero - 708.0;                                               \
        const VI below = x < low;                                                                \
        VD clamped = SELECT(below, low, x);                                                      \
        clamped = SELECT(clamped > zero, zero, clamped);                                         \
        const VD t = clamped * log2e + shifter; /* k + 1023 in the low bits of t */              \
        const VD k = t - shifter;               /* k = round(x / ln 2) */                        \
        const VD r = (clamped - k * ln2_hi) - k * ln2_lo;                                        \
        /* Estrin's scheme: the polynomial in four steps of dependent operations, not 13 */      \
        const VD r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;                                         \
        const VD q0 = 1.0 + r, q1 = 0.5 + r * (1.0 / 6.0), q2 = 1.0 / 24.0 + r * (1.0 / 120.0);  \
        const VD q3 = 1.0 / 720.0 + r * (1.0 / 5040.0);                                          \
        const VD q4 = 1.0 / 40320.0 + r * (1.0 / 362880.0);                                      \
        const VD q5 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);                                  \
        const VD q6 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);                              \
        const VD p = (q0 + r2 * q1 + r4 * (q2 + r2 * q3)) + r8 * (q4 + r2 * q5 + r4 * q6);       \
        const VD scale = (VD)(((VI)t) << 52); /* 2^k: k + 1023 in the exponent field */          \
        return SELECT(below, zero, p * scale);                                                   \
    }
AODE_EXP(aode_exp, v4d, v4i, v4_select)

/* exp(x) on eight doubles, as aode_exp (x <= 0, -inf included; below -708: 0), by a table of
 * 2^(i/8): 2^e * 2^(i/8) * exp(r), 8 e + i = round(8 x / ln 2), |r| <= ln 2 / 16, a degree-8
 * Taylor polynomial of exp(r) (remainder below 2e-18 relative): five fewer steps of the
 * polynomial than aode_exp's for one permutation (a vpermpd where the CPU has AVX-512). */
static inline __attribute__((always_inline)) v8d aode_exp8(v8d x) {
    const double shifter = 0x1.8p52, eight_log2e = 0x1.71547652b82fep3;
    const double ln2_hi = 0x1.62e42fee00000p-4, ln2_lo = 0x1.a39ef35793c76p-36; /* ln 2 / 8 */
    const v8d powers = {0x1.0p+0,
                        0x1.172b83c7d517bp+0,
                        0x1.306fe0a31b715p+0,
                        0x1.4bfdad5362a27p+0,
                        0x1.6a09e667f3bcdp+0,
                        0x1.8ace5422aa0dbp+0,
                        0x1.ae89f995ad3adp+0,
                        0x1.d5818dcfba487p+0}; /* 2^(i/8), rounded */
    const v8d zero = {0.0}, low = zero - 708.0, shift = zero + shifter;
    const v8i below = x < low;
    const v8d clamped = v8_select(below, low, x);
    const v8d t = clamped * eight_log2e + shifter; /* 1.5 2^52 + k, k = round(8 x / ln 2) */
    const v8d k = t - shifter;
    const v8d r = (clamped - k * ln2_hi) - k * ln2_lo;
    const v8i ki = (v8i)t - (v8i)shift; /* k as an integer */
    const v8d r2 = r * r, r4 = r2 * r2;
    const v8d q0 = 1.0 + r, q1 = 0.5 + r * (1.0 / 6.0), q2 = 1.0 / 24.0 + r * (1.0 / 120.0);
    const v8d q3 = 1.0 / 720.0 + r * (1.0 / 5040.0);
    const v8d p = (q0 + r2 * q1) + r4 * ((q2 + r2 * q3) + r4 * (1.0 / 40320.0));
    const v8d scale = (v8d)(((ki >> 3) + 1023) << 52) * __builtin_shuffle(powers, ki & 7);
    return v8_select(below, zero, p * scale);
}

typedef struct {
    int64_t n, m, U, P, C, B;
    const char *codes; /* (n, m) signed integers of `width` bytes, any strides */
    Py_ssize_t s0, s1;
    int width;
    const int64_t *offsets, *child_of, *sp_column, *first;
    const double *sp_weight, *frequency, *table, *sp_table;
    double min_frequency;
    int marginalize;
    double *top, *total, *n_eligible;
    int64_t *kid, *n_kids, *state, *all, *cells;
    double *score, *work;
    /* the symmetric form (pair non-NULL; every column a child and a super-parent, in order):
     * pair[g, h] = log (N(c, g, h) + alpha) in fixed point, times 2^S rounded to an integer
     * (unscale = 2^-S), ltot[a, j] = log of child j's total at super-parent category a (0 at a's
     * own column), base[a] = sp_table[a] - sum_j ltot[a, j] */
    const int64_t *pair;
    const double *ltot;
    double unscale;
    double *base;
    int64_t *obs, *miss, *acc;
    const char *takes_part; /* the symmetric form: category g's super-parent has a positive weight
                             * and g was seen min_frequency times */
    const v8d *w8;          /* P = 4: the weights of super-parents 2k and 2k + 1, each four times */
    /* the symmetric form with three classes (P = 4): the weights of super-parents 8g..8g+7 as
     * their 24 classes' lanes, three vectors a group (0 past the last super-parent), and G the
     * groups; NULL otherwise */
    const v8d *w3;
    int64_t G, SB; /* SB: a row's scores' stride (the symmetric form) */
    int bad; /* a code outside [-2, card): set by aode_rows */
} aode_job;

/* Rows scored together: their children and scores stay in cache while the super-parents' table
 * rows are read for all of them, up to four super-parents at a time (a super-parent's rows then
 * stay in the first-level cache). */
#define AODE_CHUNK 64

/* The chunk's cells, column by column (cell (r, c) at cells[c * AODE_CHUNK + r]): offsets[c] +
 * code, or the code where it is negative (-1 missing, -2 left out); a column's rows read in
 * order (next to each other: a loop the compiler vectorises). Returns 0 on a code outside [-2,
 * card). */
#define AODE_READ(T)                                                                             \
    static int aode_read_##T(const aode_job *j, int64_t start, int64_t rows, int64_t *cells) {  \
        const int64_t m = j->m;                                                                 \
        int ok = 1;                                                                             \
        for (int64_t c = 0; c < m; c++) {                                                       \
            const char *col = j->codes + c * j->s1 + start * j->s0;                             \
            const int64_t offset = j->offsets[c], card = j->offsets[c + 1] - offset;            \
            int64_t *out = cells + c * AODE_CHUNK;                                              \
            /* the column's rows of a later chunk: many columns are more streams of reads than  \
             * the hardware's prefetcher follows */                                            \
            if (start + 4 * AODE_CHUNK < j->n)                                                  \
                __builtin_prefetch(col + 4 * AODE_CHUNK * j->s0);                               \
            if (j->s0 == (Py_ssize_t)sizeof(T)) {                                               \
                const T *in = (const T *)col;                                                   \
                for (int64_t r = 0; r < rows; r++) {                                            \
                    const int64_t code = in[r];                                                 \
                    ok &= code >= -2 && code < card;                                            \
                    out[r] = code >= 0 ? code + offset : code;                                  \
                }                                                                               \
            } else                                                                              \
                for (int64_t r = 0; r < rows; r++) {                                            \
                    const int64_t code = *(const T *)(col + r * j->s0);                         \
                    ok &= code >= -2 && code < card;                                            \
                    out[r] = code >= 0 ? code + offset : code;                                  \
                }                                                                               \
        }                                                                                       \
        return ok;                                                                              \
    }
AODE_READ(int8_t)
AODE_READ(int16_t)
AODE_READ(int32_t)
AODE_READ(int64_t)

/* A row's children (cell: its column c at cell[c * AODE_CHUNK]): their table columns times P,
 * in kid; returns how many. */
static inline __attribute__((always_inline)) int64_t aode_kids(const aode_job *j,
                                                               const int64_t *cell, int64_t *kid) {
    int64_t K = 0;
    for (int64_t c = 0; c < j->m; c++) {
        const int64_t g = cell[c * AODE_CHUNK];
        if (g >= 0 && j->child_of[g] >= 0) kid[K++] = j->child_of[g] * j->P;
    }
    return K;
}

/* state[] of a super-parent that takes no part in a row, and of one summed out (missing) */
#define AODE_OUT -2
#define AODE_SUMMED -1

/* o1[c] = s1[c] + sum_k r1[kid[k] + c] and o2 likewise, for the classes c < P (a multiple of
 * 4): two children at a time (four independent sums: the additions of one wait on each other),
 * four classes in a vector; r2 = NULL: o1 only. */
static inline __attribute__((always_inline)) void aode_sum(const double *r1, const double *s1,
                                                           double *o1, const double *r2,
                                                           const double *s2, double *o2,
                                                           const int64_t *kid, int64_t K,
                                                           int64_t P) {
    const v4d zero = {0.0, 0.0, 0.0, 0.0};
    for (int64_t cb = 0; cb < P; cb += 4) {
        v4d a0 = zero, a1 = zero, b0 = zero, b1 = zero;
        int64_t k = 0;
        if (r2) {
            for (; k + 2 <= K; k += 2) {
                const int64_t u0 = kid[k] + cb, u1 = kid[k + 1] + cb;
                a0 += V4(r1 + u0);
                a1 += V4(r1 + u1);
                b0 += V4(r2 + u0);
                b1 += V4(r2 + u1);
            }
            if (k < K) {
                a0 += V4(r1 + kid[k] + cb);
                b0 += V4(r2 + kid[k] + cb);
            }
            *(v4d *)(o2 + cb) = V4(s2 + cb) + (b0 + b1);
        } else {
            for (; k + 2 <= K; k += 2) {
                a0 += V4(r1 + kid[k] + cb);
                a1 += V4(r1 + kid[k + 1] + cb);
            }
            if (k < K) a0 += V4(r1 + kid[k] + cb);
        }
        *(v4d *)(o1 + cb) = V4(s1 + cb) + (a0 + a1);
    }
}

/* aode_sum for four categories at once (one load of each child's column for four table rows):
 * o[t][c] = s[t][c] + sum_k r[t][kid[k] + c], t < 4 */
static inline __attribute__((always_inline)) void aode_sum4(const double *const *r,
                                                            const double *const *s,
                                                            double *const *o, const int64_t *kid,
                                                            int64_t K, int64_t P) {
    const v4d zero = {0.0, 0.0, 0.0, 0.0};
    for (int64_t cb = 0; cb < P; cb += 4) {
        v4d a0 = zero, a1 = zero, a2 = zero, a3 = zero, b0 = zero, b1 = zero, b2 = zero, b3 = zero;
        const double *r0 = r[0] + cb, *r1 = r[1] + cb, *r2 = r[2] + cb, *r3 = r[3] + cb;
        int64_t k = 0;
        for (; k + 2 <= K; k += 2) {
            const int64_t u0 = kid[k], u1 = kid[k + 1];
            a0 += V4(r0 + u0);
            a1 += V4(r1 + u0);
            a2 += V4(r2 + u0);
            a3 += V4(r3 + u0);
            b0 += V4(r0 + u1);
            b1 += V4(r1 + u1);
            b2 += V4(r2 + u1);
            b3 += V4(r3 + u1);
        }
        if (k < K) {
            const int64_t u0 = kid[k];
            a0 += V4(r0 + u0);
            a1 += V4(r1 + u0);
            a2 += V4(r2 + u0);
            a3 += V4(r3 + u0);
        }
        *(v4d *)(o[0] + cb) = V4(s[0] + cb) + (a0 + b0);
        *(v4d *)(o[1] + cb) = V4(s[1] + cb) + (a1 + b1);
        *(v4d *)(o[2] + cb) = V4(s[2] + cb) + (a2 + b2);
        *(v4d *)(o[3] + cb) = V4(s[3] + cb) + (a3 + b3);
    }
}

/* log sum_a exp(x[a * P + c]) over a < size, for the classes cb..cb+3 (-inf where every term
 * is): the sum, the shift apart (returned in *shift) */
static inline __attribute__((always_inline)) v4d aode_log_sum_exp(const double *x, int64_t size,
                                                                  int64_t P, v4d *shift) {
    const v4d none = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, zero = {0.0, 0.0, 0.0, 0.0};
    v4d peak = none, sum = zero;
    for (int64_t a = 0; a < size; a++) peak = v4_select(V4(x + a * P) > peak, V4(x + a * P), peak);
    *shift = v4_select(peak > none, peak, zero);
    for (int64_t a = 0; a < size; a++) sum += aode_exp(V4(x + a * P) - *shift);
    return sum;
}

/* The symmetric form's scores of one row (its column c's cell at cell[c * AODE_CHUNK]), for its
 * observed columns: base[a_i] plus, over the
 * other observed columns j, pair[g_i, g_j] (each unordered pair read once, added to both
 * columns' scores: half the look-ups of the table's rows, and half the table's lines touched),
 * plus ltot[a_i, j] over the columns j the row misses (their totals were taken off in base).
 * The scores go to s[c * P] for each observed column c. */
/* AVX-512 where the CPU has it: the exponentials of two super-parents in one vector, and 32
 * vector registers for the sums of four rows of the pair table */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define AODE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define AODE_CLONES
#endif

#define V4I(p) (*(const v4i *)(p))

/* Four rows of the pair table (their places r[0..3]) against the row's columns from the u-th
 * on: each column's four numbers added to the four rows' sums and, summed, to the column's. The
 * sums are 64-bit integers, so any order gives the same sums. */
static inline __attribute__((always_inline)) void aode_four(const int64_t *const *r,
                                                             const int64_t *pl, int64_t u,
                                                             int64_t K, int64_t cb, int64_t P,
                                                             int64_t *acc, v4i *a) {
    const int64_t *r0 = r[0] + cb, *r1 = r[1] + cb, *r2 = r[2] + cb, *r3 = r[3] + cb;
    v4i a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    for (; u + 2 <= K; u += 2) {
        const int64_t h = pl[u], e = pl[u + 1];
        const v4i x0 = V4I(r0 + h), x1 = V4I(r1 + h), x2 = V4I(r2 + h), x3 = V4I(r3 + h);
        const v4i y0 = V4I(r0 + e), y1 = V4I(r1 + e), y2 = V4I(r2 + e), y3 = V4I(r3 + e);
        a0 += x0 + y0;
        a1 += x1 + y1;
        a2 += x2 + y2;
        a3 += x3 + y3;
        *(v4i *)(acc + u * P + cb) += (x0 + x1) + (x2 + x3);
        *(v4i *)(acc + (u + 1) * P + cb) += (y0 + y1) + (y2 + y3);
    }
    if (u < K) {
        const int64_t h = pl[u];
        const v4i x0 = V4I(r0 + h), x1 = V4I(r1 + h), x2 = V4I(r2 + h), x3 = V4I(r3 + h);
        a0 += x0;
        a1 += x1;
        a2 += x2;
        a3 += x3;
        *(v4i *)(acc + u * P + cb) += (x0 + x1) + (x2 + x3);
    }
    a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
}

/* The symmetric form's scores of every category a of column col, which the row misses (the
 * super-parent summed out), to out[t * P] for its t-th category: base[a], the missed columns'
 * totals given back (miss[q], q < M), and a's pair numbers against the row's observed cells (at
 * places pl[u] / P, u < K). */
static inline __attribute__((always_inline)) void aode_summed(const aode_job *j, const int64_t *pl,
                                                              int64_t K, const int64_t *miss,
                                                              int64_t M, int64_t col, double *out) {
    const int64_t m = j->m, P = j->P, R = j->offsets[m];
    const v4d unscale = {j->unscale, j->unscale, j->unscale, j->unscale};
    const v4i none = {0, 0, 0, 0};
    for (int64_t a = j->offsets[col]; a < j->offsets[col + 1]; a++) {
        const int64_t *row = j->pair + a * P * R;
        const double *b = j->base + a * P, *lt = j->ltot + a * m * P;
        double *o = out + (a - j->offsets[col]) * P;
        for (int64_t cb = 0; cb < P; cb += 4) {
            v4i x0 = none, x1 = none;
            int64_t u = 0;
            for (; u + 2 <= K; u += 2) {
                x0 += V4I(row + pl[u] + cb);
                x1 += V4I(row + pl[u + 1] + cb);
            }
            if (u < K) x0 += V4I(row + pl[u] + cb);
            v4d v = V4(b + cb);
            for (int64_t q = 0; q < M; q++) v += V4(lt + miss[q] * P + cb);
            *(v4d *)(o + cb) = v + __builtin_convertvector(x0 + x1, v4d) * unscale;
        }
    }
}

/* The symmetric form's scores of one row (its column c's cell at cell[c * AODE_CHUNK]): every
 * super-parent's (column c's at s[c * P]; -inf where it takes no part); returns the weights of
 * those that take part. An observed column's score is base[a_i] plus, over the other observed
 * columns j, pair[g_i, g_j] (each unordered pair read once, added to both columns' sums: half the
 * look-ups of the table's rows, and half the table's lines touched), plus ltot[a_i, j] over the
 * columns j the row misses (their totals were taken off in base); a missing one is summed out
 * (marginalize) or takes no part. */
static inline __attribute__((always_inline)) double aode_triangle_in(const aode_job *j,
                                                                    const int64_t *cell,
                                                                    double *s, const int64_t P) {
    const int64_t m = j->m, R = j->offsets[m];
    const int64_t *pair = j->pair;
    int64_t *oc = j->obs, *miss = j->miss + m, *pl = j->miss, *acc = j->acc, K = 0, M = 0;
    double eligible = 0.0; /* the weights of the super-parents taking part, in column order */
    for (int64_t c = 0; c < m; c++) {
        const int64_t g = cell[c * AODE_CHUNK];
        if (g >= 0) {
            oc[K] = c;
            pl[K++] = g * P;
            if (j->takes_part[g]) eligible += j->sp_weight[c];
        } else {
            miss[M++] = c;
            if (g == -1 && j->marginalize && j->sp_weight[c] > 0.0) eligible += j->sp_weight[c];
        }
    }
    for (int64_t q = 0; q < K * P; q++) acc[q] = 0;
    int64_t t = 0;
    for (; t + 4 <= K; t += 4) {
        const int64_t *r[4] = {pair + pl[t] * R, pair + pl[t + 1] * R, pair + pl[t + 2] * R,
                               pair + pl[t + 3] * R};
        for (int64_t cb = 0; cb < P; cb += 4) {
            /* the pairs within the four */
            const v4i v01 = V4I(r[0] + pl[t + 1] + cb), v02 = V4I(r[0] + pl[t + 2] + cb),
                      v03 = V4I(r[0] + pl[t + 3] + cb), v12 = V4I(r[1] + pl[t + 2] + cb),
                      v13 = V4I(r[1] + pl[t + 3] + cb), v23 = V4I(r[2] + pl[t + 3] + cb);
            v4i a[4] = {v01 + v02 + v03, v01 + v12 + v13, v02 + v12 + v23, v03 + v13 + v23};
            aode_four(r, pl, t + 4, K, cb, P, acc, a);
            for (int q = 0; q < 4; q++) *(v4i *)(acc + (t + q) * P + cb) += a[q];
        }
    }
    for (; t < K; t++) /* the last few: each against the later ones */
        for (int64_t u = t + 1; u < K; u++) {
            const int64_t *r = pair + pl[t] * R + pl[u];
            for (int64_t cb = 0; cb < P; cb += 4) {
                const v4i x = V4I(r + cb);
                *(v4i *)(acc + t * P + cb) += x;
                *(v4i *)(acc + u * P + cb) += x;
            }
        }
    const v4d unscale = {j->unscale, j->unscale, j->unscale, j->unscale};
    const v4d out = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    if (P == 4 && M == 0) { /* the common case in a few instructions: one vector a column, no
                              * column missed (the general loop took about 40) */
        const char *takes_part = j->takes_part;
        const double *base = j->base;
        for (t = 0; t < K; t++) {
            const int64_t at = pl[t];
            const v4d v = V4(base + at) + __builtin_convertvector(V4I(acc + t * 4), v4d) * unscale;
            *(v4d *)(s + oc[t] * 4) = takes_part[at / 4] ? v : out;
        }
        return eligible;
    }
    for (t = 0; t < K; t++) { /* base[a_i], the missed columns' totals, the pair sums */
        double *o = s + oc[t] * P;
        const int64_t g = pl[t] / P;
        if (!j->takes_part[g]) {
            for (int64_t cb = 0; cb < P; cb += 4) *(v4d *)(o + cb) = out;
            continue;
        }
        const double *b = j->base + pl[t], *lt = j->ltot + g * m * P;
        for (int64_t cb = 0; cb < P; cb += 4) {
            v4d v = V4(b + cb);
            for (int64_t q = 0; q < M; q++) v += V4(lt + miss[q] * P + cb);
            const v4d sum = __builtin_convertvector(V4I(acc + t * P + cb), v4d);
            *(v4d *)(o + cb) = v + sum * unscale;
        }
    }
    for (int64_t q = 0; q < M; q++) { /* the missing: summed out, or no part */
        const int64_t c = miss[q];
        double *o = s + c * P;
        if (!(cell[c * AODE_CHUNK] == -1 && j->marginalize && j->sp_weight[c] > 0.0)) {
            for (int64_t cb = 0; cb < P; cb += 4) *(v4d *)(o + cb) = out;
            continue;
        }
        const int64_t size = j->offsets[c + 1] - j->offsets[c];
        aode_summed(j, pl, K, miss, M, c, j->work);
        for (int64_t cb = 0; cb < P; cb += 4) {
            v4d shift;
            const v4d sum = aode_log_sum_exp(j->work + cb, size, P, &shift);
            for (int i = 0; i < 4; i++) o[cb + i] = shift[i] + log(sum[i]);
        }
    }
    return eligible;
}

/* aode_triangle_in with P a constant where it is 4 (three or four classes): the classes' loops
 * gone, the places' products shifts */
AODE_CLONES static double aode_triangle(const aode_job *j, const int64_t *cell, double *s) {
    return j->P == 4 ? aode_triangle_in(j, cell, s, 4) : aode_triangle_in(j, cell, s, j->P);
}

/* Merge one row's scores s[k * P] of the B super-parents (-inf where one takes no part) into its
 * running log-sum-exp: top the largest score so far (no overflow), total the weighted sum of
 * exp(score - top); w8: the weights as vectors of eight, two super-parents a vector (P = 4). */
static inline __attribute__((always_inline)) void aode_merge(const aode_job *j, const double *s,
                                                             double *top, double *total) {
    const int64_t P = j->P, C = j->C, B = j->B;
    const v4d none = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, zero = {0.0, 0.0, 0.0, 0.0};
    if (P == 4 && j->w3) { /* three classes: eight super-parents' 24 numbers in three vectors */
        const v8d zero8 = {0.0}, none8 = zero8 - INFINITY;
        const v4d old = {top[0], top[1], top[2], -INFINITY};
        v8d peaks[4] = {none8, none8, none8, none8}; /* the rows' tails are -inf: whole groups */
        for (int64_t g = 0; g < j->G; g++)
            for (int i = 0; i < 4; i++) {
                const v8d x = *(const v8d *)(s + (g * 4 + i) * 8);
                peaks[i] = v8_select(x > peaks[i], x, peaks[i]);
            }
        v8d peak8 = v8_select(peaks[1] > peaks[0], peaks[1], peaks[0]);
        peak8 = v8_select(peaks[2] > peak8, peaks[2], peak8);
        peak8 = v8_select(peaks[3] > peak8, peaks[3], peak8);
        const v4d lo = {peak8[0], peak8[1], peak8[2], peak8[3]};
        const v4d hi = {peak8[4], peak8[5], peak8[6], peak8[7]};
        v4d peak = v4_select(lo > old, lo, old);
        peak = v4_select(hi > peak, hi, peak);
        const v4d shift = v4_select(peak > none, peak, zero);
        const v8d shift8 = {shift[0], shift[1], shift[2], shift[3],
                            shift[0], shift[1], shift[2], shift[3]};
        /* the classes of the three vectors' lanes: 0 1 2 0 1 2 0 1, 2 0 1 2 0 1 2 0, 1 2 0 ... */
        const v8i class0 = {0, 1, 2, 0, 1, 2, 0, 1}, class1 = {2, 0, 1, 2, 0, 1, 2, 0};
        const v8i class2 = {1, 2, 0, 1, 2, 0, 1, 2};
        const v8d shift0 = __builtin_shuffle(shift8, class0);
        const v8d shift1 = __builtin_shuffle(shift8, class1);
        const v8d shift2 = __builtin_shuffle(shift8, class2);
        /* four vectors of two padded super-parents each packed into three (lanes of the pair
         * a, b: a's 0-7, b's 8-15) */
        const v8i pack0 = {0, 1, 2, 4, 5, 6, 8, 9}, pack1 = {2, 4, 5, 6, 8, 9, 10, 12};
        const v8i pack2 = {5, 6, 8, 9, 10, 12, 13, 14};
        v8d sum0 = zero8, sum1 = zero8, sum2 = zero8;
        for (int64_t g = 0; g < j->G; g++) {
            const v8d *x = (const v8d *)(s + g * 32);
            const v8d *w = j->w3 + g * 3;
            sum0 += w[0] * aode_exp8(__builtin_shuffle(x[0], x[1], pack0) - shift0);
            sum1 += w[1] * aode_exp8(__builtin_shuffle(x[1], x[2], pack1) - shift1);
            sum2 += w[2] * aode_exp8(__builtin_shuffle(x[2], x[3], pack2) - shift2);
        }
        /* back to two padded super-parents a vector (lanes 3 and 7 any), added */
        const v8i back0 = {0, 1, 2, 0, 3, 4, 5, 0}, back1 = {6, 7, 8, 0, 9, 10, 11, 0};
        const v8i back2 = {4, 5, 6, 0, 7, 8, 9, 0}, back3 = {2, 3, 4, 0, 5, 6, 7, 0};
        const v8d all = (__builtin_shuffle(sum0, back0) + __builtin_shuffle(sum0, sum1, back1)) +
                        (__builtin_shuffle(sum1, sum2, back2) + __builtin_shuffle(sum2, back3));
        const v4d sum = (v4d){all[0], all[1], all[2], all[3]} + (v4d){all[4], all[5], all[6], all[7]};
        const v4d rescale = aode_exp(old - shift);
        for (int c = 0; c < 3; c++) {
            total[c] = total[c] * rescale[c] + sum[c];
            top[c] = peak[c];
        }
        return;
    }
    if (P == 4) { /* two super-parents in one vector of eight: even ones low, odd high */
        const v8d zero8 = {0.0}, none8 = zero8 - INFINITY;
        const int64_t pairs = B / 2;
        v4d old = none;
        for (int c = 0; c < C; c++) old[c] = top[c];
        /* four peaks and two sums: short chains of dependence (the sums wait on the peaks) */
        v8d peak8 = none8, peaks[4] = {none8, none8, none8, none8};
        int64_t k = 0;
        for (; k + 4 <= pairs; k += 4)
            for (int i = 0; i < 4; i++) {
                const v8d x = *(const v8d *)(s + (k + i) * 8);
                peaks[i] = v8_select(x > peaks[i], x, peaks[i]);
            }
        for (; k < pairs; k++) {
            const v8d x = *(const v8d *)(s + k * 8);
            peak8 = v8_select(x > peak8, x, peak8);
        }
        for (int i = 0; i < 4; i++) peak8 = v8_select(peaks[i] > peak8, peaks[i], peak8);
        v4d lo = {peak8[0], peak8[1], peak8[2], peak8[3]};
        const v4d hi = {peak8[4], peak8[5], peak8[6], peak8[7]};
        if (B % 2) { /* the last, alone: with the even ones */
            const v4d x = V4(s + (B - 1) * 4);
            lo = v4_select(x > lo, x, lo);
        }
        v4d peak = v4_select(lo > old, lo, old);
        peak = v4_select(hi > peak, hi, peak);
        const v4d shift = v4_select(peak > none, peak, zero);
        const v8d shift8 = {shift[0], shift[1], shift[2], shift[3],
                            shift[0], shift[1], shift[2], shift[3]};
        v8d sum8 = zero8, other8 = zero8;
        for (k = 0; k + 2 <= pairs; k += 2) {
            sum8 += j->w8[k] * aode_exp8(*(const v8d *)(s + k * 8) - shift8);
            other8 += j->w8[k + 1] * aode_exp8(*(const v8d *)(s + (k + 1) * 8) - shift8);
        }
        if (k < pairs) sum8 += j->w8[k] * aode_exp8(*(const v8d *)(s + k * 8) - shift8);
        sum8 += other8;
        v4d sum = (v4d){sum8[0], sum8[1], sum8[2], sum8[3]};
        if (B % 2) sum += j->sp_weight[B - 1] * aode_exp(V4(s + (B - 1) * 4) - shift);
        sum += (v4d){sum8[4], sum8[5], sum8[6], sum8[7]};
        const v4d rescale = aode_exp(old - shift);
        for (int c = 0; c < C; c++) {
            total[c] = total[c] * rescale[c] + sum[c];
            top[c] = peak[c];
        }
        return;
    }
    for (int64_t cb = 0; cb < P; cb += 4) {
        v4d old = none, peak, shift, sum = zero;
        for (int c = 0; c < 4 && cb + c < C; c++) old[c] = top[cb + c];
        v4d peak2 = none, sum2 = zero; /* two of each: shorter chains of dependence */
        peak = old;
        int64_t k = 0;
        for (; k + 2 <= B; k += 2) {
            const v4d x = V4(s + k * P + cb), y = V4(s + (k + 1) * P + cb);
            peak = v4_select(x > peak, x, peak);
            peak2 = v4_select(y > peak2, y, peak2);
        }
        if (k < B) {
            const v4d x = V4(s + k * P + cb);
            peak = v4_select(x > peak, x, peak);
        }
        peak = v4_select(peak2 > peak, peak2, peak);
        shift = v4_select(peak > none, peak, zero);
        for (k = 0; k + 2 <= B; k += 2) {
            sum += j->sp_weight[k] * aode_exp(V4(s + k * P + cb) - shift);
            sum2 += j->sp_weight[k + 1] * aode_exp(V4(s + (k + 1) * P + cb) - shift);
        }
        if (k < B) sum += j->sp_weight[k] * aode_exp(V4(s + k * P + cb) - shift);
        sum += sum2;
        const v4d rescale = aode_exp(old - shift);
        for (int c = 0; c < 4 && cb + c < C; c++) {
            total[cb + c] = total[cb + c] * rescale[c] + sum[c];
            top[cb + c] = peak[c];
        }
    }
}

AODE_CLONES static void aode_rows(aode_job *j, int64_t lo, int64_t hi) {
    const int64_t m = j->m, P = j->P, C = j->C, B = j->B, UP = j->U * j->P;
    const double *table = j->table, *sp_table = j->sp_table;
    double *score = j->score, *work = j->work;
    int64_t *state = j->state, *all = j->all, *n_kids = j->n_kids;
    const v4d none = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (int64_t start = lo; start < hi; start += AODE_CHUNK) {
        const int64_t rows = hi - start < AODE_CHUNK ? hi - start : AODE_CHUNK;
        /* each row's children (their table columns, times P) and super-parents' categories */
        const int ok = j->width == 1   ? aode_read_int8_t(j, start, rows, j->cells)
                       : j->width == 2 ? aode_read_int16_t(j, start, rows, j->cells)
                       : j->width == 4 ? aode_read_int32_t(j, start, rows, j->cells)
                                       : aode_read_int64_t(j, start, rows, j->cells);
        if (!ok) {
            j->bad = 1;
            return;
        }
        if (j->pair) { /* the symmetric form: row by row, every super-parent's score, merged */
            /* each row's scores merged after the next row's are computed: the merge reads two
             * super-parents' scores at once, written as two vectors of four, which waits for the
             * writes to reach the cache when it follows them closely (no store forwarding from
             * two stores to one load) */
            for (int64_t r = 0; r <= rows; r++) {
                if (r < rows)
                    j->n_eligible[start + r] += aode_triangle(j, j->cells + r, score + (r & 1) * j->SB);
                if (r > 0)
                    aode_merge(j, score + ((r - 1) & 1) * j->SB, j->top + (start + r - 1) * C,
                               j->total + (start + r - 1) * C);
            }
            continue;
        }
        for (int64_t r = 0; r < rows; r++) {
            const int64_t *cell = j->cells + r; /* its column c at cell[c * AODE_CHUNK] */
            int64_t *st = state + r * B;
            n_kids[r] = aode_kids(j, cell, j->kid + r * m);
            double eligible = 0.0;
            for (int64_t k = 0; k < B; k++) {
                const int64_t col = j->sp_column[k], g = cell[col * AODE_CHUNK];
                st[k] = AODE_OUT;
                if (!(j->sp_weight[k] > 0.0)) continue;
                if (g >= 0) {
                    if (!(j->frequency[g] >= j->min_frequency)) continue;
                    st[k] = j->first[k] + g - j->offsets[col];
                } else if (g == -1 && j->marginalize)
                    st[k] = AODE_SUMMED;
                else
                    continue;
                eligible += j->sp_weight[k];
            }
            j->n_eligible[start + r] += eligible;
        }
        /* the observed super-parents' scores, four super-parents at a time over the rows (the
         * rest two or one at a time) */
        for (int64_t k = 0; k < B; k += 4) {
            const int64_t width = B - k < 4 ? B - k : 4;
            for (int64_t r = 0; r < rows; r++) {
                const int64_t *kid = j->kid + r * m, K = n_kids[r], *st = state + r * B + k;
                const double *rt[4], *sp[4];
                double *o[4];
                int found = 0;
                for (int64_t t = 0; t < width; t++)
                    if (st[t] >= 0) {
                        rt[found] = table + st[t] * UP;
                        sp[found] = sp_table + st[t] * P;
                        o[found++] = score + (r * B + k + t) * P;
                    }
                if (found == 4) {
                    aode_sum4(rt, sp, o, kid, K, P);
                    continue;
                }
                int t = 0;
                for (; t + 2 <= found; t += 2)
                    aode_sum(rt[t], sp[t], o[t], rt[t + 1], sp[t + 1], o[t + 1], kid, K, P);
                if (t < found) aode_sum(rt[t], sp[t], o[t], NULL, NULL, NULL, kid, K, P);
            }
        }
        for (int64_t r = 0; r < rows; r++) {
            const int64_t *st = state + r * B, *kid = j->kid + r * m, K = n_kids[r];
            double *s = score + r * B * P;
            for (int64_t k = 0; k < B; k++) {
                if (st[k] == AODE_OUT) /* no part: -inf, exp(-inf) = 0 in the merge */
                    for (int64_t cb = 0; cb < P; cb += 4) *(v4d *)(s + k * P + cb) = none;
                if (st[k] != AODE_SUMMED) continue;
                /* a missing super-parent summed out: log-sum-exp over its categories */
                const int64_t col = j->sp_column[k];
                const int64_t size = j->offsets[col + 1] - j->offsets[col];
                for (int64_t t = 0; t < size; t++) all[t] = j->first[k] + t;
                for (int64_t t = 0; t < size; t++)
                    aode_sum(table + all[t] * UP, sp_table + all[t] * P, work + t * P, NULL, NULL,
                             NULL, kid, K, P);
                for (int64_t cb = 0; cb < P; cb += 4) {
                    v4d shift;
                    const v4d sum = aode_log_sum_exp(work + cb, size, P, &shift);
                    for (int c = 0; c < 4; c++) s[k * P + cb + c] = shift[c] + log(sum[c]);
                }
            }
            aode_merge(j, s, j->top + (start + r) * C, j->total + (start + r) * C);
        }
    }
}

static PyObject *aode_block(PyObject *self, PyObject *args) {
    PyObject *obj[13];
    double min_frequency, unscale;
    int marginalize;
    if (!PyArg_ParseTuple(args, "OOOOOOdiOOOOOOOd", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4],
                          &obj[5], &min_frequency, &marginalize, &obj[6], &obj[7], &obj[8],
                          &obj[9], &obj[10], &obj[11], &obj[12], &unscale))
        return NULL;
    /* codes (n, m) signed integers, any strides: each row's category code of each column, -1
     * missing, -2 left out (neither child nor super-parent); offsets (m + 1) int64: each
     * column's first place among all the columns' categories (its codes are places offsets[j]
     * + code); child_of (R) int64: each place's column of table (-1: not a child, e.g. a column
     * of one category); sp_column (B) int64: the block's super-parents; sp_weight (B) float64:
     * their weights in the average (0: none); frequency (R) float64: each category's training
     * count; table (S, U, P) float64, S the block's categories, super-parent by super-parent, P
     * the classes padded to a multiple of 4; sp_table (S, P) float64; top, total (n, C) float64
     * and n_eligible (n) float64, updated in place; pair (R, R, P) int64, log_totals (S, m, P)
     * float64 and unscale: the symmetric form (see aode_job; table then (0, 0, P)), or pair and
     * log_totals empty: not used */
    const char *names[12] = {"offsets", "child_of",   "sp_column", "sp_weight",
                             "frequency", "table",    "sp_table",  "top",
                             "total",   "n_eligible", "pair",      "log_totals"};
    const int kinds[12] = {0, 0, 0, 1, 1, 4, 3, 3 | 8, 3 | 8, 1 | 8, 6, 4};
    Py_buffer v, b_all[13], *b = b_all + 1;
    int got = 0, have_codes = 0, is_signed = 0;
    PyObject *result = NULL;
    int64_t *ints = NULL;
    double *scratch = NULL;
    if (get_2d(obj[0], &v, 0, "aode_block: codes") < 0) return NULL;
    have_codes = 1;
    const int width = int_kind(&v, &is_signed);
    if (!is_signed || !(width == 1 || width == 2 || width == 4 || width == 8)) {
        PyErr_SetString(PyExc_TypeError, "aode_block: codes must be signed integers");
        goto done;
    }
    if (!loo_columns(obj + 1, b, &got, "aode_block", names, 12, kinds)) goto done;
    aode_job j;
    j.n = v.shape[0], j.m = v.shape[1], j.B = b[2].shape[0];
    j.U = b[5].shape[1], j.P = b[5].shape[2], j.C = b[7].shape[1];
    const int64_t n = j.n, m = j.m, R = b[1].shape[0], B = j.B, S = b[6].shape[0];
    const int sym = b[10].shape[0] > 0;
    const int64_t U = j.U, P = j.P, C = j.C;
    j.codes = v.buf, j.s0 = v.strides[0], j.s1 = v.strides[1], j.width = width, j.bad = 0;
    j.offsets = b[0].buf, j.child_of = b[1].buf, j.sp_column = b[2].buf;
    j.sp_weight = b[3].buf, j.frequency = b[4].buf, j.table = b[5].buf, j.sp_table = b[6].buf;
    j.top = b[7].buf, j.total = b[8].buf, j.n_eligible = b[9].buf;
    j.min_frequency = min_frequency, j.marginalize = marginalize;
    const int64_t *offsets = j.offsets;
    int ok = C >= 1 && P >= C && P % 4 == 0 && P - C < 4 && b[0].shape[0] == m + 1 &&
             b[3].shape[0] == B && b[4].shape[0] == R && (sym || b[5].shape[0] == S) &&
             b[6].shape[1] == P &&
             b[8].shape[0] == n && b[8].shape[1] == C && b[7].shape[0] == n && b[9].shape[0] == n &&
             offsets[0] == 0 && offsets[m] == R;
    for (int64_t c = 0; ok && c < m; c++) ok = offsets[c + 1] >= offsets[c];
    for (int64_t g = 0; ok && g < R; g++) ok = j.child_of[g] >= -1 && (sym || j.child_of[g] < U);
    int64_t widest = 1, states = 0;
    for (int64_t k = 0; ok && k < B; k++) {
        ok = j.sp_column[k] >= 0 && j.sp_column[k] < m;
        if (ok) {
            const int64_t size = offsets[j.sp_column[k] + 1] - offsets[j.sp_column[k]];
            states += size;
            if (size > widest) widest = size;
        }
    }
    ok = ok && states == S;
    /* the symmetric form: every column a child (of its own table column) and a super-parent, in
     * column order */
    if (sym) {
        ok = ok && B == m && S == R && b[5].shape[0] == 0 && b[10].shape[0] == R &&
             b[10].shape[1] == R && b[10].shape[2] == P && b[11].shape[0] == S &&
             b[11].shape[1] == m && b[11].shape[2] == P && unscale > 0.0;
        for (int64_t k = 0; ok && k < B; k++) ok = j.sp_column[k] == k;
        for (int64_t g = 0; ok && g < R; g++) ok = j.child_of[g] == g;
        /* no row's sum of m - 1 pair numbers may leave the 64-bit integers: each at most
         * 2^62 / (m - 1) in size */
        const int64_t *pair = b[10].buf, limit = (int64_t)(0x1p62 / (double)(m > 1 ? m - 1 : 1));
        int inside = 1;
        for (int64_t q = 0; q < R * R * P; q++) inside &= pair[q] >= -limit && pair[q] <= limit;
        ok = ok && inside;
    } else
        ok = ok && b[10].shape[0] == 0 && b[11].shape[0] == 0;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "aode_block: inconsistent arguments");
        goto done;
    }
    const int64_t chunk = AODE_CHUNK;
    ints = malloc(sizeof(int64_t) * (size_t)(B + chunk * (2 * m + B + 1) + widest + 1 + 3 * m +
                                             m * P) +
                  (size_t)R);
    scratch = malloc(sizeof(double) *
                     (size_t)((chunk * B + widest + (sym ? S : 0)) * P + 4 + (B / 2) * 8 +
                              (B + 7) / 8 * 24));
    if (!ints || !scratch) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *first = ints;
    for (int64_t k = 0, at = 0; k < B; k++) {
        first[k] = at;
        at += offsets[j.sp_column[k] + 1] - offsets[j.sp_column[k]];
    }
    j.first = first, j.kid = ints + B, j.state = j.kid + chunk * m, j.n_kids = j.state + chunk * B;
    j.all = j.n_kids + chunk, j.cells = j.all + widest + 1;
    j.score = scratch, j.work = scratch + chunk * B * P;
    j.obs = j.cells + chunk * m, j.miss = j.obs + m, j.acc = j.miss + 2 * m;
    j.pair = sym ? b[10].buf : NULL, j.ltot = sym ? b[11].buf : NULL, j.base = NULL;
    j.unscale = unscale, j.takes_part = NULL;
    double *w8 = scratch + (chunk * B + widest + (sym ? S : 0)) * P + 4;
    for (int64_t k = 0; k < B / 2; k++)
        for (int c = 0; c < 8; c++) w8[k * 8 + c] = j.sp_weight[2 * k + c / 4];
    j.w8 = (const v8d *)w8;
    j.w3 = NULL, j.G = (B + 7) / 8, j.SB = B * P;
    if (sym && P == 4 && C == 3) { /* whole groups of eight super-parents: -inf past the last */
        double *w3 = w8 + (B / 2) * 8;
        for (int64_t x = 0; x < j.G * 24; x++) {
            const int64_t k = x / 24 * 8 + x % 24 / 3;
            w3[x] = k < B ? j.sp_weight[k] : 0.0;
        }
        j.w3 = (const v8d *)w3, j.SB = j.G * 32;
        for (int64_t x = B * P; x < j.SB; x++) j.score[x] = j.score[j.SB + x] = -INFINITY;
    }
    if (sym) { /* base[a] = sp_table[a] - sum_j ltot[a, j] */
        char *takes_part = (char *)(j.acc + m * P);
        for (int64_t k = 0; k < m; k++)
            for (int64_t g = offsets[k]; g < offsets[k + 1]; g++)
                takes_part[g] = j.sp_weight[k] > 0.0 && j.frequency[g] >= j.min_frequency;
        j.takes_part = takes_part;
        j.base = j.work + widest * P;
        for (int64_t a = 0; a < S; a++)
            for (int64_t c = 0; c < P; c++) {
                double sum = 0.0;
                for (int64_t q = 0; q < m; q++) sum += j.ltot[(a * m + q) * P + c];
                j.base[a * P + c] = j.sp_table[a * P + c] - sum;
            }
    }
    Py_BEGIN_ALLOW_THREADS
    aode_rows(&j, 0, n);
    Py_END_ALLOW_THREADS
    if (j.bad) {
        PyErr_SetString(PyExc_ValueError, "aode_block: a code outside [-2, its column's categories)");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(ints);
    free(scratch);
    if (have_codes) PyBuffer_Release(&v);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    (void)b_all;
    return result;
}

/* -- aode_proba ----------------------------------------------------------------------------- */

/* P(c | x) from each row's running log-sum-exp (top, total) of aode_block: total[c] exp(top[c] -
 * T) over their sum, T the row's largest top (the rows' weights of eligible super-parents, a
 * factor of every class, cancel). Four classes at a time. Returns the rows left as NaN: those
 * whose sum is not positive and finite (no class possible, e.g. no super-parent eligible). */
AODE_CLONES static int64_t aode_proba_rows(const double *top, const double *total, double *out,
                                           int64_t n, int64_t C) {
    int64_t bad = 0;
    for (int64_t r = 0; r < n; r++) {
        const double *t = top + r * C, *w = total + r * C;
        double *o = out + r * C, peak = -INFINITY, sum = 0.0;
        for (int64_t c = 0; c < C; c++) peak = t[c] > peak ? t[c] : peak;
        for (int64_t cb = 0; cb < C; cb += 4) {
            v4d x = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, y = {0.0, 0.0, 0.0, 0.0};
            for (int c = 0; c < 4 && cb + c < C; c++) x[c] = t[cb + c] - peak, y[c] = w[cb + c];
            const v4d p = y * aode_exp(x);
            for (int c = 0; c < 4 && cb + c < C; c++) o[cb + c] = p[c], sum += p[c];
        }
        if (sum > 0.0 && sum < INFINITY) {
            for (int64_t c = 0; c < C; c++) o[c] /= sum;
        } else {
            for (int64_t c = 0; c < C; c++) o[c] = NAN;
            bad++;
        }
    }
    return bad;
}

static PyObject *aode_proba(PyObject *self, PyObject *args) {
    PyObject *obj[3];
    if (!PyArg_ParseTuple(args, "OOO", &obj[0], &obj[1], &obj[2])) return NULL;
    /* top, total (n, C) float64 (aode_block's); out (n, C) float64, written */
    const char *names[3] = {"top", "total", "out"};
    const int kinds[3] = {3, 3, 3 | 8};
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    if (!loo_columns(obj, b, &got, "aode_proba", names, 3, kinds)) goto done;
    const int64_t n = b[0].shape[0], C = b[0].shape[1];
    for (int k = 1; k < 3; k++)
        if (b[k].shape[0] != n || b[k].shape[1] != C) {
            PyErr_SetString(PyExc_ValueError, "aode_proba: inconsistent arguments");
            goto done;
        }
    int64_t bad;
    Py_BEGIN_ALLOW_THREADS
    bad = aode_proba_rows(b[0].buf, b[1].buf, b[2].buf, n, C);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong((long long)bad);
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

#endif /* __GNUC__ */

/* -- gathered_sums ---------------------------------------------------------------------------- */

/* out[r, :] = matrix[picks[r, 0], :] + matrix[picks[r, 1], :] + ..., the picked rows added in the
 * order of picks' columns (numpy's sum in turn, to the last bit: additions only, never fused or
 * reordered). A row picks a few rows of many (the state sums of a variable summed out,
 * bnclassify/elimination.py), so the columns are taken a tile at a time (every matrix row's
 * columns t0 .. t0 + width, within GATHER_TILE_BYTES of the core's cache) and every row of out
 * sums its picks from that tile before the next: the matrix is read once. The tile is read in
 * place; only where the matrix's rows lie a multiple of GATHER_ALIAS_BYTES apart, so that a tile's
 * rows fall in a few cache sets and evict each other, is it copied into a buffer first. */
#define GATHER_TILE_BYTES (1024 * 1024)
#define GATHER_ALIAS_BYTES 1024
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define GATHER_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GATHER_CLONES
#endif

/* A strip of GATHER_STRIP columns is summed in registers over every pick of a row, then stored:
 * each pick costs one read of the strip, not a read and a write of the row's running sum. The
 * tile's rows are `stride` apart. */
#define GATHER_STRIP 16

static GATHER_CLONES void gather_tile(const double *restrict tile, int64_t width, int64_t stride,
                                      const int64_t *restrict picks, int64_t n_picks,
                                      int64_t n_rows, double *restrict out, int64_t n_cols) {
    int64_t whole = width / GATHER_STRIP * GATHER_STRIP;
    for (int64_t r = 0; r < n_rows; r++) {
        const int64_t *p = picks + r * n_picks;
        double *restrict o = out + r * n_cols;
        for (int64_t t0 = 0; t0 < whole; t0 += GATHER_STRIP) {
            double acc[GATHER_STRIP];
            const double *a = tile + p[0] * stride + t0;
            for (int t = 0; t < GATHER_STRIP; t++) acc[t] = a[t];
            for (int64_t f = 1; f < n_picks; f++) {
                const double *b = tile + p[f] * stride + t0;
                for (int t = 0; t < GATHER_STRIP; t++) acc[t] += b[t];
            }
            for (int t = 0; t < GATHER_STRIP; t++) o[t0 + t] = acc[t];
        }
        if (whole < width) { /* the last columns, fewer than a strip */
            const double *a = tile + p[0] * stride;
            for (int64_t t = whole; t < width; t++) o[t] = a[t];
            for (int64_t f = 1; f < n_picks; f++) {
                const double *b = tile + p[f] * stride;
                for (int64_t t = whole; t < width; t++) o[t] += b[t];
            }
        }
    }
}

static PyObject *gathered_sums(PyObject *self, PyObject *args) {
    PyObject *matrix_obj, *picks_obj, *out_obj, *bounds_obj = NULL, *peak_obj = NULL;
    if (!PyArg_ParseTuple(args, "OOO|OO", &matrix_obj, &picks_obj, &out_obj, &bounds_obj, &peak_obj))
        return NULL;
    /* matrix (R, T) float64, picks (n, F) int64 in [0, R), F >= 1, out (n, T) float64: all
     * C-contiguous. With bounds (S + 1) int64, 0 = bounds[0] < ... < bounds[S] = T, and peak (n, S)
     * float64: each row's largest sum in each segment [bounds[s], bounds[s + 1]) (0 when it is
     * not finite) goes to peak and is taken off the segment's sums. */
    Py_buffer b[5];
    PyObject *objs[5] = {matrix_obj, picks_obj, out_obj, bounds_obj, peak_obj};
    const char *formats[5] = {"d", "q", "d", "q", "d"};
    const int dims[5] = {2, 2, 2, 1, 2};
    int n_bufs = bounds_obj && bounds_obj != Py_None ? 5 : 3;
    int got = 0;
    PyObject *result = NULL;
    double *tile = NULL;
    for (; got < n_bufs; got++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 2 || got == 4 ? PyBUF_WRITABLE : 0);
        if (!objs[got] || PyObject_GetBuffer(objs[got], &b[got], flags) < 0) {
            if (!objs[got]) PyErr_SetString(PyExc_TypeError, "gathered_sums: bounds without peak");
            goto done;
        }
        const char *f = native_format(b[got].format);
        if (b[got].ndim != dims[got] || b[got].itemsize != 8 || !f ||
            (strcmp(f, formats[got]) != 0 && !((got == 1 || got == 3) && strcmp(f, "l") == 0))) {
            got++;
            PyErr_SetString(PyExc_TypeError, "gathered_sums: C-contiguous float64 matrix, out and "
                                             "peak, int64 picks and bounds");
            goto done;
        }
    }
    int64_t R = b[0].shape[0], T = b[0].shape[1], n = b[1].shape[0], F = b[1].shape[1];
    if (b[2].shape[0] != n || b[2].shape[1] != T || F < 1) {
        PyErr_SetString(PyExc_ValueError, "gathered_sums: out must be (len(picks), matrix columns), "
                                          "picks at least one column");
        goto done;
    }
    const int64_t *picks = (const int64_t *)b[1].buf;
    for (int64_t k = 0; k < n * F; k++)
        if (picks[k] < 0 || picks[k] >= R) {
            PyErr_SetString(PyExc_ValueError, "gathered_sums: a pick outside the matrix's rows");
            goto done;
        }
    int64_t S = 0;
    const int64_t *bounds = NULL;
    double *peak = NULL;
    if (n_bufs == 5) {
        S = b[3].shape[0] - 1;
        bounds = (const int64_t *)b[3].buf;
        peak = (double *)b[4].buf;
        int ok = S >= 1 && bounds[0] == 0 && bounds[S] == T && b[4].shape[0] == n && b[4].shape[1] == S;
        for (int64_t q = 0; ok && q < S; q++) ok = bounds[q] < bounds[q + 1];
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "gathered_sums: bounds must rise from 0 to the matrix's "
                                              "columns, peak be (len(picks), len(bounds) - 1)");
            goto done;
        }
    }
    int64_t width = GATHER_TILE_BYTES / (8 * (R > 0 ? R : 1));
    width = width < 8 ? 8 : width / 8 * 8;
    const double *matrix = (const double *)b[0].buf;
    if (width >= T) /* the whole matrix is one tile */
        width = T;
    else if ((T * 8) % GATHER_ALIAS_BYTES == 0 && !(tile = malloc((size_t)(R * width) * sizeof(double)))) {
        PyErr_NoMemory();
        goto done;
    }
    double *out = (double *)b[2].buf;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t t0 = 0; t0 < T; t0 += width) {
        int64_t w = t0 + width < T ? width : T - t0;
        if (tile)
            for (int64_t q = 0; q < R; q++)
                memcpy(tile + q * w, matrix + q * T + t0, (size_t)w * sizeof(double));
        gather_tile(tile ? tile : matrix + t0, w, tile ? w : T, picks, F, n, out + t0, T);
    }
    for (int64_t r = 0; peak && r < n; r++)
        for (int64_t q = 0; q < S; q++) {
            double *o = out + r * T, top = o[bounds[q]];
            for (int64_t t = bounds[q] + 1; t < bounds[q + 1]; t++) top = o[t] > top ? o[t] : top;
            if (!isfinite(top)) top = 0.0;
            for (int64_t t = bounds[q]; t < bounds[q + 1]; t++) o[t] -= top;
            peak[r * S + q] = top;
        }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(tile);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- table_sums -------------------------------------------------------------------------------- */

/* Each row's terms of a network's table nodes, every node's cell computed from the row's codes and
 * added in turn (the order of gathered_sums): out[r, :] = sum over nodes k of cells[i_k(r), :],
 * i_k(r) = offsets[k] + sum_a codes[r, family[k, a]] * strides[k, a], or row `zero` where
 * left_out[r, k] (a node whose family is not observed in the row: its codes are read as given but
 * not used). Returns -1 when a cell falls outside the stacked tables (a code outside its column's
 * states), 0 otherwise. */
#define TABLE_ROWS(T)                                                                             \
    static int table_rows_##T(const char *base, int64_t n, Py_ssize_t s0, Py_ssize_t s1,           \
                              const int64_t *family, const int64_t *strides, const int64_t *offsets, \
                              int64_t K, int64_t A, const double *cells, int64_t R, int64_t C,     \
                              int64_t zero, const uint8_t *left_out, double *out) {                \
        for (int64_t r = 0; r < n; r++) {                                                          \
            double *o = out + r * C;                                                               \
            for (int64_t k = 0; k < K; k++) {                                                      \
                int64_t cell = zero;                                                               \
                if (!left_out || !left_out[r * K + k]) {                                           \
                    cell = offsets[k];                                                             \
                    for (int64_t a = 0; a < A; a++)                                                \
                        cell += CELL(T, base, s0, s1, r, family[k * A + a]) * strides[k * A + a];  \
                }                                                                                  \
                if (cell < 0 || cell >= R) return -1;                                              \
                const double *c = cells + cell * C;                                                \
                if (k == 0)                                                                        \
                    for (int64_t q = 0; q < C; q++) o[q] = c[q];                                   \
                else                                                                               \
                    for (int64_t q = 0; q < C; q++) o[q] += c[q];                                  \
            }                                                                                      \
        }                                                                                          \
        return 0;                                                                                  \
    }
TABLE_ROWS(int8_t)
TABLE_ROWS(int16_t)
TABLE_ROWS(int32_t)
TABLE_ROWS(int64_t)
TABLE_ROWS(uint8_t)
TABLE_ROWS(uint16_t)
TABLE_ROWS(uint32_t)

static PyObject *table_sums(PyObject *self, PyObject *args) {
    PyObject *obj[7];
    long long zero;
    if (!PyArg_ParseTuple(args, "OOOOOLOO", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4], &zero,
                          &obj[5], &obj[6]))
        return NULL;
    /* codes (n, m) integers, any strides; family, strides (K, A) int64; offsets (K) int64; cells
     * (R, C) float64; zero: a row of cells; left_out (n, K) uint8 or (0, 0): none; out (n, C)
     * float64, written. All but codes C-contiguous. */
    Py_buffer v, b[6];
    int is_signed, size, got = 0;
    PyObject *result = NULL;
    if (open_block(obj[0], &v, &is_signed, &size) < 0) return NULL;
    const char *formats[6] = {"q", "q", "q", "d", "B", "d"};
    const int dims[6] = {2, 2, 1, 2, 2, 2};
    PyObject *order[6] = {obj[1], obj[2], obj[3], obj[4], obj[5], obj[6]};
    for (; got < 6; got++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 5 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(order[got], &b[got], flags) < 0) goto done;
        const char *f = native_format(b[got].format);
        int ok = f && b[got].ndim == dims[got] &&
                 (strcmp(f, formats[got]) == 0 || (got < 3 && strcmp(f, "l") == 0 && b[got].itemsize == 8) ||
                  (got == 4 && strcmp(f, "?") == 0));
        if (!ok) {
            got++;
            PyErr_SetString(PyExc_TypeError, "table_sums: int64 family, strides and offsets, float64 "
                                             "cells and out, bool left_out");
            goto done;
        }
    }
    int64_t n = v.shape[0], K = b[0].shape[0], A = b[0].shape[1], R = b[3].shape[0], C = b[3].shape[1];
    int has_left_out = b[4].shape[0] != 0;
    if (b[1].shape[0] != K || b[1].shape[1] != A || b[2].shape[0] != K || b[5].shape[0] != n ||
        b[5].shape[1] != C || (has_left_out && (b[4].shape[0] != n || b[4].shape[1] != K)) || K < 1) {
        PyErr_SetString(PyExc_ValueError, "table_sums: shapes do not agree");
        goto done;
    }
    const int64_t *family = (const int64_t *)b[0].buf;
    for (int64_t k = 0; k < K * A; k++)
        if (family[k] < 0 || family[k] >= v.shape[1]) {
            PyErr_SetString(PyExc_ValueError, "table_sums: a family column outside the codes");
            goto done;
        }
    int bad = 0;
    const char *base = (const char *)v.buf;
    Py_ssize_t s0 = v.strides[0], s1 = v.strides[1];
    const uint8_t *lo = has_left_out ? (const uint8_t *)b[4].buf : NULL;
    Py_BEGIN_ALLOW_THREADS
    DISPATCH(bad = table_rows, (base, n, s0, s1, family, (const int64_t *)b[1].buf,
                                (const int64_t *)b[2].buf, K, A, (const double *)b[3].buf, R, C,
                                (int64_t)zero, lo, (double *)b[5].buf));
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "table_sums: a cell outside the tables (a code outside "
                                          "its column's states)");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    PyBuffer_Release(&v);
    return result;
}

/* -- open_pairs -------------------------------------------------------------------------------- */

/* The candidate edges of a block of Kruskal's algorithm (bnclassify/structure.py): the flat
 * positions i * m + j, i < j, ascending, of the pairs of a square float64 matrix (any strides)
 * heavier than `threshold` whose ends are in different trees of the union-find forest (root: each
 * node's root). out holds at least m (m - 1) / 2 entries; returns how many were written. */
static PyObject *open_pairs(PyObject *self, PyObject *args) {
    PyObject *matrix_obj, *root_obj, *out_obj;
    double threshold;
    if (!PyArg_ParseTuple(args, "OdOO", &matrix_obj, &threshold, &root_obj, &out_obj)) return NULL;
    Py_buffer v, r, o;
    if (get_2d(matrix_obj, &v, 0, "matrix") < 0) return NULL;
    if (get_1d(root_obj, &r, 0, 8, "root") < 0) {
        PyBuffer_Release(&v);
        return NULL;
    }
    if (get_1d(out_obj, &o, 1, 8, "out") < 0) {
        PyBuffer_Release(&v);
        PyBuffer_Release(&r);
        return NULL;
    }
    PyObject *result = NULL;
    const char *f = native_format(v.format), *fr = native_format(r.format), *fo = native_format(o.format);
    const Py_ssize_t m = v.shape[0];
    if (v.itemsize != 8 || !f || strcmp(f, "d") != 0 || v.shape[1] != m || !fr || !fo ||
        !strchr("lq", fr[0]) || !strchr("lq", fo[0]) || r.shape[0] != m ||
        o.shape[0] < m * (m - 1) / 2) {
        PyErr_SetString(PyExc_TypeError,
                        "open_pairs: a square float64 matrix, root (m) and out (m (m - 1) / 2) int64");
        goto done;
    }
    const int64_t *root = r.buf;
    for (Py_ssize_t i = 0; i < m; i++)
        if (root[i] < 0 || root[i] >= m) {
            PyErr_SetString(PyExc_ValueError, "open_pairs: a root out of its range");
            goto done;
        }
    int64_t *out = o.buf, count = 0;
    const Py_ssize_t s0 = v.strides[0], s1 = v.strides[1];
    const char *base = (const char *)v.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) {
        const char *row = base + i * s0;
        const int64_t ri = root[i];
        for (Py_ssize_t j = i + 1; j < m; j++)
            if (*(const double *)(row + j * s1) > threshold && root[j] != ri) out[count++] = i * m + j;
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(count);
done:
    PyBuffer_Release(&v);
    PyBuffer_Release(&r);
    PyBuffer_Release(&o);
    return result;
}

/* -- spanning_edges --------------------------------------------------------------------------- */

/* Kruskal's union-find over candidate edges in the order given (bnclassify/structure.py sorts
 * them: heaviest first, ties by the columns' names): edge e joins rows[e] and columns[e] unless
 * they are connected already. parent (m int64) is the union-find forest, updated in place and
 * kept between calls (the caller hands the edges over a block at a time); accepted receives the
 * positions of the edges taken, in order, at most `limit` of them. Returns how many were taken.
 * Which edges are taken depends only on the order, not on how the forest is linked. */
static int64_t union_find_root(int64_t *parent, int64_t v) {
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

static PyObject *spanning_edges(PyObject *self, PyObject *args) {
    PyObject *obj[4];
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OOOOn", &obj[0], &obj[1], &obj[2], &obj[3], &limit)) return NULL;
    const char *names[4] = {"rows", "columns", "parent", "accepted"};
    Py_buffer b[4];
    int got = 0;
    PyObject *result = NULL;
    for (int k = 0; k < 4; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k >= 2 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj[k], &b[k], flags) < 0) goto done;
        got++;
        const char *f = native_format(b[k].format);
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr("lq", f[0]) || b[k].itemsize != 8 ||
            b[k].ndim != 1) {
            PyErr_Format(PyExc_TypeError, "spanning_edges: %s must be 1-D int64", names[k]);
            goto done;
        }
    }
    const int64_t n = b[0].shape[0], m = b[2].shape[0];
    const int64_t *rows = b[0].buf, *columns = b[1].buf;
    int64_t *parent = b[2].buf, *accepted = b[3].buf;
    if (limit > b[3].shape[0]) limit = b[3].shape[0];
    int ok = b[1].shape[0] == n && limit >= 0;
    for (int64_t e = 0; ok && e < n; e++)
        ok = rows[e] >= 0 && rows[e] < m && columns[e] >= 0 && columns[e] < m;
    for (int64_t v = 0; ok && v < m; v++) ok = parent[v] >= 0 && parent[v] < m;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "spanning_edges: a node out of its range");
        goto done;
    }
    int64_t taken = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t e = 0; e < n && taken < limit; e++) {
        const int64_t a = union_find_root(parent, rows[e]), c = union_find_root(parent, columns[e]);
        if (a != c) {
            parent[c] = a;
            accepted[taken++] = e;
        }
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromLongLong(taken);
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    return result;
}

/* -- dag_search -------------------------------------------------------------------------------- */

/* The score-based DAG search of bnclassify/dag_search.py (hill climbing, the tabu walk and the
 * iterated search over them), every move, gain and family counted here: that module's Python
 * search is its twin (see there for the rules; bnclassify/_native/search.py for the arguments).
 * Variables are 0 .. n - 1 over the k distinct rows of codes (column-major: codes[v * k + i],
 * -1 missing). A gain of adding u to v's parents S counts both families (with and without u) on
 * the rows observing S, u and v; a removal gain is minus the gain of adding it back. Gains and
 * family scores are cached by (child, parent set, candidate). Ties: the first move (additions,
 * removals, reversals, each by parent then child) whose gain is within the tolerance of the
 * best. */

enum { DS_BDEU, DS_BD, DS_K2, DS_BIC, DS_AIC, DS_LOGLIK, DS_BDS };
enum { DS_ADD, DS_REMOVE, DS_REVERSE };

typedef struct {
    int kw;           /* key words */
    size_t cap, used; /* slots (a power of two), filled */
    uint64_t *keys;   /* cap * kw */
    double *values;
    uint8_t *full;
} ds_map;

/* Each word mixed in whole (splitmix64's finalizer): the slot is the hash's low bits, and a
 * key's high bits (the parents numbered 46 to 63 of a word) must move them too. */
static uint64_t ds_hash(const uint64_t *key, int kw) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int j = 0; j < kw; j++) {
        h ^= key[j];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        h *= 0x94D049BB133111EBull;
        h ^= h >> 32;
    }
    return h;
}

static int ds_map_init(ds_map *m, int kw, size_t cap) {
    m->kw = kw, m->cap = cap, m->used = 0;
    m->keys = malloc(cap * kw * sizeof(uint64_t));
    m->values = malloc(cap * sizeof(double));
    m->full = calloc(cap, 1);
    return m->keys && m->values && m->full ? 0 : -1;
}

static void ds_map_free(ds_map *m) {
    free(m->keys), free(m->values), free(m->full);
    m->keys = NULL, m->values = NULL, m->full = NULL;
}

/* The slot of key: its own, or the empty one where it would go. */
static size_t ds_slot(const ds_map *m, const uint64_t *key) {
    const int kw = m->kw;
    size_t s = ds_hash(key, kw) & (m->cap - 1);
    for (;; s = (s + 1) & (m->cap - 1)) {
        if (!m->full[s]) return s;
        const uint64_t *at = m->keys + s * kw;
        int j = 0;
        while (j < kw && at[j] == key[j]) j++;
        if (j == kw) return s;
    }
}

static int ds_get(const ds_map *m, const uint64_t *key, double *value) {
    size_t s = ds_slot(m, key);
    if (!m->full[s]) return 0;
    if (value) *value = m->values[s];
    return 1;
}

static int ds_put(ds_map *m, const uint64_t *key, double value) {
    if (2 * (m->used + 1) > m->cap) {
        ds_map bigger;
        if (ds_map_init(&bigger, m->kw, m->cap * 2) < 0) {
            ds_map_free(&bigger);
            return -1;
        }
        for (size_t s = 0; s < m->cap; s++)
            if (m->full[s]) {
                size_t t = ds_slot(&bigger, m->keys + s * m->kw);
                memcpy(bigger.keys + t * m->kw, m->keys + s * m->kw, m->kw * sizeof(uint64_t));
                bigger.values[t] = m->values[s], bigger.full[t] = 1;
            }
        bigger.used = m->used;
        ds_map_free(m);
        *m = bigger;
    }
    size_t s = ds_slot(m, key);
    if (!m->full[s]) {
        memcpy(m->keys + s * m->kw, key, m->kw * sizeof(uint64_t));
        m->full[s] = 1, m->used++;
    }
    m->values[s] = value;
    return 0;
}

typedef struct { int kind, u, v; double score; } ds_move;

/* A code (negative: missing): 16 bits, so a table's columns take half the cache of int32. */
typedef int16_t ds_code;

#define DS_MEMOS_MAX 512

typedef struct {
    int n, w, score_kind, max_parents;
    int cls; /* the class's variable (-1: none): a family without it is kept once per class */
    Py_ssize_t k;
    const ds_code *codes;
    const double *weights;
    const int64_t *cards;
    double prior, n_rows, max_cells, rel_tol;
    const uint8_t *allowed, *required; /* [u * n + v] */
    uint8_t *arcs;                     /* [u * n + v]: u -> v */
    int *n_par, *par;                  /* par[v * n + j], sorted */
    uint64_t *reach, *other;           /* reach[a * w ..]: b reached from a by >= 1 arc */
    int reach_ok;
    double *add_gain, *remove_gain, *gains; /* [u * n + v]; gains (3, n, n) */
    double score;
    ds_map cache, seen, tried;
    uint64_t *key, *graph_key;
    int64_t *ids;
    int32_t *remap;
    size_t remap_cap;
    double *table, *block;
    size_t table_cap, stamp_cap, block_cap;
    uint32_t *stamp, generation;
    int64_t *touched; /* k: the table rows that rows fall in */
    int64_t *cell;    /* k: each row's cell in the family's table (ds_states), -1 missing */
    uint8_t *missing; /* whether each variable misses a cell in some row */
    uint8_t *observing; /* k: whether each row observes a set of variables (ds_change) */
    size_t memo_size;  /* integer weights: the total weight + 1; else 0 (ds_memo) */
    int n_memos;
    double memo_a[DS_MEMOS_MAX], *memos[DS_MEMOS_MAX];
    size_t memo_cap[DS_MEMOS_MAX], memo_cells; /* each memo's length (grown), their sum */
    int any_missing;
    int *cands, *todo, *order, *indegree;
    double *found;
    ds_move *path;
    size_t path_len, path_cap;
    int *tabu, n_tabu, tabu_cap; /* (kind, u, v) triples */
    uint8_t *best_arcs, *keep_arcs;
    int failed;
    /* integer weights (iw: each row's, NULL when some is not an integer): the count tables
     * met, by variable set (ds_recall, ds_keep), each in the axis order it was counted in */
    int32_t *iw;
    ds_code *scodes;  /* (n, k): the rows' codes in a shuffled order, iw's order (ds_cells) */
    int32_t *cell32;  /* k: each shuffled row's cell (ds_cells) */
    ds_map sets;      /* variable set (bits) -> entry */
    uint64_t *set_key;
    int32_t *kept;    /* the tables' counts */
    int *kept_vars;   /* each table's axis order */
    size_t *entry_at, *entry_vars, kept_used, kept_cap, vars_used, vars_cap, n_entries, entries_cap;
    int32_t *iblock;  /* int32 tables counted together */
    size_t iblock_cap;
    size_t keep_max; /* the most cells of a table kept */
    int unit;        /* every weight 1 */
} ds_state;

static double ds_tolerance(const ds_state *d, double score) {
    double a = fabs(score);
    return d->rel_tol * (a > 1.0 ? a : 1.0);
}

/* lgamma(count + a) for the counts of a table with integer weights: each count is an integer
 * up to the total weight, and each `a` one of few (the pseudo-counts of the families' sizes),
 * so each value is computed once (the same value lgamma gives). The memo of a (-1: none, real
 * weights or too many); a memo grows to the largest count met (most tables' counts are far
 * below the total weight: a memo of the total weight per `a` would be mostly page faults). */
static int ds_memo(ds_state *d, double a) {
    if (!d->memo_size) return -1;
    for (int j = 0; j < d->n_memos; j++)
        if (d->memo_a[j] == a) return j;
    if (d->n_memos == DS_MEMOS_MAX) return -1;
    d->memo_a[d->n_memos] = a, d->memos[d->n_memos] = NULL, d->memo_cap[d->n_memos] = 0;
    return d->n_memos++;
}

/* Memo j long enough for count c; 0, or -1 when it may not grow (lgamma itself then). */
static int ds_memo_grow(ds_state *d, int j, size_t c) {
    size_t cap = d->memo_cap[j] ? d->memo_cap[j] : 256;
    while (cap <= c) cap *= 2;
    if (cap > d->memo_size) cap = d->memo_size;
    /* at most 32 MB of memos (a table of many rows: lgamma itself) */
    if (c >= cap || d->memo_cells + cap - d->memo_cap[j] > ((size_t)1 << 22)) return -1;
    double *memo = realloc(d->memos[j], cap * sizeof(double));
    if (!memo) return -1;
    for (size_t e = d->memo_cap[j]; e < cap; e++) memo[e] = NAN;
    d->memo_cells += cap - d->memo_cap[j];
    d->memos[j] = memo, d->memo_cap[j] = cap;
    return 0;
}

static inline double ds_lgamma(ds_state *d, int j, double count, double a) {
    if (j < 0) return lgamma(count + a);
    const size_t c = (size_t)count;
    if (c >= d->memo_cap[j] && ds_memo_grow(d, j, c) < 0) return lgamma(count + a);
    double *at = d->memos[j] + c;
    if (isnan(*at)) *at = lgamma(count + a);
    return *at;
}

/* One family table's score: rows of r counts (those listed in `rows` when given, else the
 * first n_rows), q_total joint parent states. */
static double ds_table_score(const ds_state *d, const double *t, const int64_t *rows,
                             Py_ssize_t n_rows, int r, double q_total) {
    double s = 0.0;
    if (d->score_kind >= DS_BIC && d->score_kind <= DS_LOGLIK) {
        for (Py_ssize_t j = 0; j < n_rows; j++) {
            const double *row = t + (rows ? rows[j] : j) * r;
            double total = 0.0;
            for (int c = 0; c < r; c++) total += row[c];
            if (total <= 0.0) continue;
            for (int c = 0; c < r; c++)
                if (row[c] != 0.0) s += row[c] * log(row[c] / total);
        }
        if (d->score_kind == DS_BIC) {
            if (d->n_rows > 0) s -= 0.5 * log(d->n_rows) * q_total * (r - 1);
        } else if (d->score_kind == DS_AIC)
            s -= q_total * (r - 1);
        return s;
    }
    if (d->score_kind == DS_BDS) { /* the equivalent sample size over the occurring states */
        Py_ssize_t occurring = 0;
        for (Py_ssize_t j = 0; j < n_rows; j++) {
            const double *row = t + (rows ? rows[j] : j) * r;
            double total = 0.0;
            for (int c = 0; c < r; c++) total += row[c];
            occurring += total > 0.0;
        }
        q_total = occurring > 0 ? (double)occurring : 1.0;
    }
    double a = d->score_kind == DS_BDEU || d->score_kind == DS_BDS ? d->prior / (q_total * r)
               : d->score_kind == DS_K2 ? 1.0 : d->prior;
    double ra = a * r, lga = lgamma(a), lgra = lgamma(ra);
    ds_state *m = (ds_state *)d;
    const int cell_memo = ds_memo(m, a), row_memo = ds_memo(m, ra);
    for (Py_ssize_t j = 0; j < n_rows; j++) {
        const double *row = t + (rows ? rows[j] : j) * r;
        double total = 0.0;
        for (int c = 0; c < r; c++) total += row[c];
        if (total <= 0.0) continue;
        s += lgra - ds_lgamma(m, row_memo, total, ra);
        for (int c = 0; c < r; c++)
            if (row[c] != 0.0) s += ds_lgamma(m, cell_memo, row[c], a) - lga;
    }
    return s;
}

static int ds_grow(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * item);
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}

static double ds_q_total(const ds_state *d, const int *s, int ns) {
    double q = 1.0;
    for (int j = 0; j < ns; j++) q *= (double)d->cards[s[j]];
    return q;
}

/* Integer weights: the tables counted are kept by variable set, so a family's table met again
 * in another role (u -> v added to S or v -> u to S: the same rows of S, u and v) is read
 * from the one counted instead of the rows; integer counts are the same whatever order they
 * are added in, and each table is rearranged into the axis order that counting it would give,
 * so every score sums the same terms in the same order. */
#define DS_KEPT_CELLS ((size_t)1 << 23)
#define DS_BIT(set, b) (((set)[(b) / 64] >> ((b) % 64)) & 1)

static void ds_set_bits(ds_state *d, const int *vars, int m) {
    memset(d->set_key, 0, (size_t)d->w * sizeof(uint64_t));
    for (int j = 0; j < m; j++) d->set_key[vars[j] / 64] |= (uint64_t)1 << (vars[j] % 64);
}

static int ds_keep(ds_state *d, const int *order, int m, const int32_t *ti, const double *td,
                   size_t cells);

/* Kept table e in the axes `order` (m of them; the first the slowest) into out, summed over
 * its variable w when w >= 0 (integer counts: the sums are exact). */
static void ds_gather(ds_state *d, size_t e, const int *order, int m, int w, double *out) {
    const int32_t *src = d->kept + d->entry_at[e];
    const int *sv = d->kept_vars + d->entry_vars[e];
    const int mm = m + (w >= 0);
    int64_t stride[mm > 0 ? mm : 1], card[m > 0 ? m : 1], from[m > 0 ? m : 1], idx[m > 0 ? m : 1];
    int64_t st = 1, sw = 0, cw = 1;
    for (int j = mm - 1; j >= 0; j--) stride[j] = st, st *= d->cards[sv[j]];
    for (int p = 0; p < mm; p++)
        if (sv[p] == w) sw = stride[p], cw = d->cards[w];
    size_t cells = 1;
    for (int j = 0; j < m; j++) {
        int p = 0;
        while (sv[p] != order[j]) p++;
        from[j] = stride[p], card[j] = d->cards[order[j]], idx[j] = 0;
        cells *= (size_t)card[j];
    }
    const int64_t inner = m > 0 ? card[m - 1] : 1, step = m > 0 ? from[m - 1] : 0;
    int64_t base = 0;
    for (size_t o = 0; o < cells; o += (size_t)inner) {
        for (int64_t c = 0; c < inner; c++) {
            const int32_t *at = src + base + c * step;
            int64_t sum = 0;
            for (int64_t x = 0; x < cw; x++) sum += at[x * sw];
            out[o + c] = (double)sum;
        }
        for (int j = m - 2; j >= 0; j--) {
            base += from[j];
            if (++idx[j] < card[j]) break;
            base -= from[j] * card[j], idx[j] = 0;
        }
    }
}

/* The counts of the rows observing every variable of `order` (m distinct ones; the first the
 * slowest axis) into out: 1 from a kept table of these variables, or of one more (that misses
 * no cell) summed over it (then kept too; tried when the probes cost little next to a pass
 * over the rows), else 0; -1 out of memory. */
static int ds_recall(ds_state *d, const int *order, int m, double *out) {
    if (!d->iw) return 0;
    double size = 1.0;
    for (int j = 0; j < m; j++) size *= (double)d->cards[order[j]];
    if (size > (double)d->keep_max) return 0;
    ds_set_bits(d, order, m);
    double at;
    if (ds_get(&d->sets, d->set_key, &at)) {
        ds_gather(d, (size_t)at, order, m, -1, out);
        return 1;
    }
    if ((double)(d->n - m) * 64.0 > (double)d->k) return 0;
    for (int w = 0; w < d->n; w++) {
        /* summed over w, a table counts the rows observing w too: w must miss no cell */
        if (DS_BIT(d->set_key, w) || d->missing[w]) continue;
        d->set_key[w / 64] |= (uint64_t)1 << (w % 64);
        const int found = ds_get(&d->sets, d->set_key, &at);
        d->set_key[w / 64] &= ~((uint64_t)1 << (w % 64));
        if (found) {
            ds_gather(d, (size_t)at, order, m, w, out);
            return ds_keep(d, order, m, NULL, out, (size_t)size) < 0 ? -1 : 1;
        }
    }
    return 0;
}

/* Keep the counts of the rows observing every variable of `order` (axis order; ti int32, else
 * td), within DS_KEPT_CELLS in all. */
static int ds_keep(ds_state *d, const int *order, int m, const int32_t *ti, const double *td,
                   size_t cells) {
    if (!d->iw || cells > d->keep_max || d->kept_used + cells > DS_KEPT_CELLS) return 0;
    ds_set_bits(d, order, m);
    if (ds_get(&d->sets, d->set_key, NULL)) return 0;
    if (ds_grow((void **)&d->kept, &d->kept_cap, d->kept_used + cells, sizeof(int32_t)) < 0 ||
        ds_grow((void **)&d->kept_vars, &d->vars_cap, d->vars_used + m, sizeof(int)) < 0 ||
        ds_grow((void **)&d->entry_at, &d->entries_cap, d->n_entries + 1, sizeof(size_t)) < 0)
        return -1;
    /* entry_vars grows with entry_at (the same capacity) */
    size_t cap = d->entries_cap;
    void *q = realloc(d->entry_vars, cap * sizeof(size_t));
    if (!q) return -1;
    d->entry_vars = q;
    int32_t *to = d->kept + d->kept_used;
    if (ti) memcpy(to, ti, cells * sizeof(int32_t));
    else
        for (size_t c = 0; c < cells; c++) to[c] = (int32_t)td[c];
    memcpy(d->kept_vars + d->vars_used, order, (size_t)m * sizeof(int));
    d->entry_at[d->n_entries] = d->kept_used, d->entry_vars[d->n_entries] = d->vars_used;
    d->kept_used += cells, d->vars_used += (size_t)m;
    ds_set_bits(d, order, m);
    return ds_put(&d->sets, d->set_key, (double)d->n_entries++);
}

/* d->cell32[i]: shuffled row i's cell in the dense table of the variables `order` (m >= 1, the
 * first the slowest axis, the last the child), -1 when it misses one. */
static void ds_cells(ds_state *d, const int *order, int m) {
    const Py_ssize_t k = d->k;
    int32_t *cell = d->cell32;
    const ds_code *c[4];
    int32_t card[4];
    for (int j = 0; j < m && j < 4; j++)
        c[j] = d->scodes + (size_t)order[j] * k, card[j] = (int32_t)d->cards[order[j]];
    if (!d->any_missing && m <= 4) {
        /* one pass, the common families' sizes written out */
        if (m == 1)
            for (Py_ssize_t i = 0; i < k; i++) cell[i] = c[0][i];
        else if (m == 2)
            for (Py_ssize_t i = 0; i < k; i++) cell[i] = c[0][i] * card[1] + c[1][i];
        else if (m == 3)
            for (Py_ssize_t i = 0; i < k; i++)
                cell[i] = (c[0][i] * card[1] + c[1][i]) * card[2] + c[2][i];
        else
            for (Py_ssize_t i = 0; i < k; i++)
                cell[i] = ((c[0][i] * card[1] + c[1][i]) * card[2] + c[2][i]) * card[3] + c[3][i];
        return;
    }
    for (Py_ssize_t i = 0; i < k; i++) cell[i] = 0;
    for (int j = 0; j < m; j++) {
        const ds_code *cj = d->scodes + (size_t)order[j] * k;
        const int32_t cd = (int32_t)d->cards[order[j]];
        if (d->any_missing)
            for (Py_ssize_t i = 0; i < k; i++)
                cell[i] = cell[i] < 0 || cj[i] < 0 ? -1 : cell[i] * cd + cj[i];
        else
            for (Py_ssize_t i = 0; i < k; i++) cell[i] = cell[i] * cd + cj[i];
    }
}

/* The dense table of the variables `order` (m >= 1, the last the child; cells of them) into
 * t: kept, else counted on the shuffled rows with integer weights and kept. */
static int ds_dense_table(ds_state *d, const int *order, int m, size_t cells, double *t) {
    const int got = ds_recall(d, order, m, t);
    if (got) return got < 0 ? -1 : 0;
    if (ds_grow((void **)&d->iblock, &d->iblock_cap, cells, sizeof(int32_t)) < 0) return -1;
    int32_t *ti = d->iblock;
    memset(ti, 0, cells * sizeof(int32_t));
    ds_cells(d, order, m);
    const int32_t *cell = d->cell32, *w = d->iw;
    for (Py_ssize_t i = 0; i < d->k; i++)
        if (cell[i] >= 0) ti[cell[i]] += w[i];
    for (size_t c = 0; c < cells; c++) t[c] = (double)ti[c];
    return ds_keep(d, order, m, ti, NULL, cells) < 0 ? -1 : 0;
}

/* ids[i]: the row's joint state of v and the parents S numbered among at most `bound`
 * (those that occur, when dense numbers would exceed the rows), -1 when it misses one.
 * Returns the bound, -1 on memory failure. */
static int64_t ds_states(ds_state *d, int v, const int *s, int ns) {
    const Py_ssize_t k = d->k;
    int64_t *ids = d->ids;
    const ds_code *cv = d->codes + (size_t)v * k;
    const int64_t limit = (int64_t)k + 64;
    if (!d->any_missing && ds_q_total(d, s, ns) <= (double)limit) {
        /* no missing cell and few states: each row's state in one pass */
        const ds_code *cp[ns > 0 ? ns : 1];
        int64_t card[ns > 0 ? ns : 1], bound = 1;
        for (int j = 0; j < ns; j++)
            cp[j] = d->codes + (size_t)s[j] * k, card[j] = d->cards[s[j]], bound *= card[j];
        const int64_t r = d->cards[v];
        for (Py_ssize_t i = 0; i < k; i++) {
            int64_t id = 0;
            for (int j = 0; j < ns; j++) id = id * card[j] + cp[j][i];
            ids[i] = id, d->cell[i] = id * r + cv[i];
        }
        return bound;
    }
    for (Py_ssize_t i = 0; i < k; i++) ids[i] = cv[i] < 0 ? -1 : 0;
    int64_t bound = 1;
    for (int j = 0; j <= ns; j++) {
        if (bound > limit || j == ns) {
            if (bound <= limit) break;
            /* renumber the states that occur (first seen first) */
            if (ds_grow((void **)&d->remap, &d->remap_cap, (size_t)bound, sizeof(int32_t)) < 0)
                return -1;
            for (int64_t b = 0; b < bound; b++) d->remap[b] = -1;
            int32_t next = 0;
            for (Py_ssize_t i = 0; i < k; i++)
                if (ids[i] >= 0) {
                    if (d->remap[ids[i]] < 0) d->remap[ids[i]] = next++;
                    ids[i] = d->remap[ids[i]];
                }
            bound = next > 0 ? next : 1;
            if (j == ns) break;
        }
        const int p = s[j];
        const int64_t card = d->cards[p];
        const ds_code *cp = d->codes + (size_t)p * k;
        if (d->any_missing) {
            for (Py_ssize_t i = 0; i < k; i++)
                if (ids[i] >= 0) ids[i] = cp[i] < 0 ? -1 : ids[i] * card + cp[i];
        } else /* no test: a loop the compiler vectorizes */
            for (Py_ssize_t i = 0; i < k; i++) ids[i] = ids[i] * card + cp[i];
        bound *= card;
    }
    const int64_t r = d->cards[v];
    for (Py_ssize_t i = 0; i < k; i++) d->cell[i] = ids[i] < 0 ? -1 : ids[i] * r + cv[i];
    return bound;
}

/* The score of the table whose rows are the rows' joint states index[i] * q + ids[i] (index
 * NULL: ids[i]; the candidate's state the slowest, so a row's cell is index[i] * q * r +
 * cell[i], cell[i] = ids[i] * r + its child's state, counted once per family), the rows missing
 * filter[i] (filter NULL: none) left out; q_rows table rows, r states of the child, q_total
 * joint parent states. A table no larger than about the rows is cleared and scored whole; a
 * larger one (most of its rows empty) only in the rows that some row falls in (a generation
 * stamp per table row says which). */
static int ds_counted_score(ds_state *d, const ds_code *filter, const ds_code *index, int64_t q,
                            int64_t q_rows, int r, double q_total, double *out) {
    const Py_ssize_t k = d->k;
    const int64_t *ids = d->ids, *cell = d->cell;
    const double *w = d->weights;
    const int64_t qr = q * r;
    if (ds_grow((void **)&d->table, &d->table_cap, (size_t)q_rows * r, sizeof(double)) < 0)
        return -1;
    double *t = d->table;
    if ((size_t)q_rows * r <= 2 * (size_t)k + 256) {
        memset(t, 0, (size_t)q_rows * r * sizeof(double));
        if (index) {
            for (Py_ssize_t i = 0; i < k; i++)
                if (cell[i] >= 0 && index[i] >= 0) t[index[i] * qr + cell[i]] += w[i];
        } else if (filter) {
            for (Py_ssize_t i = 0; i < k; i++)
                if (cell[i] >= 0 && filter[i] >= 0) t[cell[i]] += w[i];
        } else {
            for (Py_ssize_t i = 0; i < k; i++)
                if (cell[i] >= 0) t[cell[i]] += w[i];
        }
        *out = ds_table_score(d, t, NULL, (Py_ssize_t)q_rows, r, q_total);
        return 0;
    }
    const size_t had = d->stamp_cap;
    if (ds_grow((void **)&d->stamp, &d->stamp_cap, (size_t)q_rows, sizeof(uint32_t)) < 0) return -1;
    if (d->stamp_cap > had) /* new stamps: no row's yet */
        memset(d->stamp + had, 0, (d->stamp_cap - had) * sizeof(uint32_t));
    if (++d->generation == 0) { /* wrapped: every stamp is stale again */
        memset(d->stamp, 0, d->stamp_cap * sizeof(uint32_t));
        d->generation = 1;
    }
    const uint32_t gen = d->generation;
    uint32_t *stamp = d->stamp;
    int64_t *touched = d->touched;
    Py_ssize_t nt = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (cell[i] < 0 || (filter && filter[i] < 0)) continue;
        const int64_t row = (index ? index[i] * q : 0) + ids[i];
        if (stamp[row] != gen) {
            stamp[row] = gen, touched[nt++] = row;
            memset(t + row * r, 0, r * sizeof(double));
        }
        t[row * r + (cell[i] - ids[i] * r)] += w[i];
    }
    *out = ds_table_score(d, t, touched, nt, r, q_total);
    return 0;
}

#define DS_BLOCK_CELLS ((size_t)1 << 22)

/* The marginal of table t (cu blocks of qr cells, the first axis slowest) over its first
 * axis, into m. */
static void ds_sum_first(const double *t, int64_t cu, size_t qr, double *m) {
    memcpy(m, t, qr * sizeof(double));
    for (int64_t x = 1; x < cu; x++)
        for (size_t j = 0; j < qr; j++) m[j] += t[(size_t)x * qr + j];
}

/* ds_compute_gains with integer weights and a dense family table no larger than the rows:
 * each candidate's table (axes u, S, v) read from a kept one, the others counted together in
 * int32 tables and kept; a family without the candidate is its table summed over u (the
 * rows observing S, u and v; without missing cells in u, those observing S and v). */
static int ds_gains_kept(ds_state *d, int v, const int *s, int ns, const int *cands, int nc,
                         double *gains) {
    const Py_ssize_t k = d->k;
    const int r = (int)d->cards[v];
    const double q_total = ds_q_total(d, s, ns);
    const int64_t q = (int64_t)q_total;
    const size_t small = 2 * (size_t)k + 256, qr = (size_t)q * r;
    int ord[ns + 2]; /* u, S, v */
    for (int j = 0; j < ns; j++) ord[1 + j] = s[j];
    ord[ns + 1] = v;
    int need_base = 0, counted = 0, celled = 0, have_base = 0;
    size_t most = qr;
    for (int c = 0; c < nc; c++) {
        const size_t cells = qr * (size_t)d->cards[cands[c]];
        need_base |= !d->missing[cands[c]];
        if (cells <= small && cells > most) most = cells;
    }
    if (ds_grow((void **)&d->block, &d->block_cap, most + qr, sizeof(double)) < 0) return -1;
    double *tab = d->block, *marg = d->block + most, base = 0.0;
    const int got = need_base ? ds_recall(d, ord + 1, ns + 1, marg) : 0;
    if (got < 0) return -1;
    if (got) {
        base = ds_table_score(d, marg, NULL, (Py_ssize_t)q, r, q_total);
        have_base = 1;
    }
    int miss[nc > 0 ? nc : 1], alone[nc > 0 ? nc : 1], nm = 0, na = 0;
    for (int c = 0; c < nc; c++) {
        const int u = cands[c];
        const int64_t cu = d->cards[u];
        if (qr * (size_t)cu > small) {
            alone[na++] = c;
            continue;
        }
        ord[0] = u;
        const int hit = ds_recall(d, ord, ns + 2, tab);
        if (hit < 0) return -1;
        if (!hit) {
            miss[nm++] = c;
            continue;
        }
        gains[c] = ds_table_score(d, tab, NULL, (Py_ssize_t)(q * cu), r, q_total * cu);
        if (d->missing[u] || !have_base) {
            ds_sum_first(tab, cu, qr, marg);
            const double without = ds_table_score(d, marg, NULL, (Py_ssize_t)q, r, q_total);
            if (!d->missing[u]) {
                base = without, have_base = 1;
                if (ds_keep(d, ord + 1, ns + 1, NULL, marg, qr) < 0) return -1;
            }
            gains[c] -= without;
        } else
            gains[c] -= base;
    }
    for (int e = 0; e < nm;) {
        /* a block of missed tables counted in one pass over the rows */
        size_t cells = qr * (size_t)d->cards[cands[miss[e]]];
        int end = e + 1;
        while (end < nm) {
            const size_t more = qr * (size_t)d->cards[cands[miss[end]]];
            if (cells + more > DS_BLOCK_CELLS) break;
            cells += more, end++;
        }
        if (!celled) ds_cells(d, ord + 1, ns + 1);
        celled = 1;
        const int fold = need_base && !have_base;
        if (ds_grow((void **)&d->iblock, &d->iblock_cap, cells + qr, sizeof(int32_t)) < 0)
            return -1;
        memset(d->iblock, 0, (cells + (fold ? qr : 0)) * sizeof(int32_t));
        const int nb = end - e;
        const ds_code *codes[nb];
        int32_t *tables[nb];
        size_t offset = 0;
        for (int b = 0; b < nb; b++) {
            codes[b] = d->scodes + (size_t)cands[miss[e + b]] * k;
            tables[b] = d->iblock + offset;
            offset += qr * (size_t)d->cards[cands[miss[e + b]]];
        }
        int32_t *margin = d->iblock + cells;
        const int32_t *cell = d->cell32;
        const int32_t *w = d->iw;
        const int32_t qr32 = (int32_t)qr;
        if (!d->any_missing) {
            if (fold)
                for (Py_ssize_t i = 0; i < k; i++) margin[cell[i]] += w[i];
            /* a table at a time: shuffled, the rows' adds seldom wait on each other */
            for (int b = 0; b < nb; b++) {
                int32_t *tb = tables[b];
                const ds_code *cb = codes[b];
                if (d->unit)
                    for (Py_ssize_t i = 0; i < k; i++) tb[cb[i] * qr32 + cell[i]]++;
                else
                    for (Py_ssize_t i = 0; i < k; i++) tb[cb[i] * qr32 + cell[i]] += w[i];
            }
        } else
            for (Py_ssize_t i = 0; i < k; i++) {
                if (cell[i] < 0) continue;
                const int32_t at = cell[i], wi = w[i];
                if (fold) margin[at] += wi;
                for (int b = 0; b < nb; b++) {
                    const ds_code x = codes[b][i];
                    if (x >= 0) tables[b][x * qr32 + at] += wi;
                }
            }
        if (fold) {
            for (size_t j = 0; j < qr; j++) marg[j] = (double)margin[j];
            base = ds_table_score(d, marg, NULL, (Py_ssize_t)q, r, q_total);
            have_base = 1;
            if (ds_keep(d, ord + 1, ns + 1, margin, NULL, qr) < 0) return -1;
        }
        for (int b = 0; b < nb; b++) {
            const int c = miss[e + b], u = cands[c];
            const int64_t cu = d->cards[u];
            const size_t n_cells = qr * (size_t)cu;
            for (size_t j = 0; j < n_cells; j++) tab[j] = (double)tables[b][j];
            gains[c] = ds_table_score(d, tab, NULL, (Py_ssize_t)(q * cu), r, q_total * cu);
            if (d->missing[u]) {
                ds_sum_first(tab, cu, qr, marg);
                gains[c] -= ds_table_score(d, marg, NULL, (Py_ssize_t)q, r, q_total);
            } else
                gains[c] -= base;
            ord[0] = u;
            if (ds_keep(d, ord, ns + 2, tables[b], NULL, n_cells) < 0) return -1;
        }
        e = end;
    }
    for (int e = 0; e < na; e++) {
        /* a large table alone, as ds_compute_gains counts it */
        const int c = alone[e], u = cands[c];
        const int64_t cu = d->cards[u];
        const ds_code *code = d->codes + (size_t)u * k;
        if (!counted && ds_states(d, v, s, ns) < 0) return -1;
        counted = 1;
        double with, without;
        if (ds_counted_score(d, code, code, q, q * cu, r, q_total * cu, &with) < 0) return -1;
        if (d->missing[u]) {
            if (ds_counted_score(d, code, NULL, q, q, r, q_total, &without) < 0) return -1;
        } else {
            if (!have_base && ds_counted_score(d, NULL, NULL, q, q, r, q_total, &base) < 0)
                return -1;
            have_base = 1, without = base;
        }
        gains[c] = with - without;
    }
    return 0;
}

/* gains[c]: adding cands[c] to v's parents S (sorted), both families on the rows observing
 * the larger one: the family without the candidate is v's with S on every row observing S
 * and v when the candidate has no missing cell (scored once). The candidates whose tables are
 * small are counted together, a row added to each in turn: rows sorted by their codes fall
 * in the same cell one after another, and one candidate's adds would wait on each other. */
static int ds_compute_gains(ds_state *d, int v, const int *s, int ns, const int *cands, int nc,
                            double *gains) {
    const Py_ssize_t k = d->k;
    const int r = (int)d->cards[v];
    if (d->iw && ds_q_total(d, s, ns) <= (double)k + 64 &&
        ds_q_total(d, s, ns) * r <= (double)(2 * (size_t)k + 256))
        return ds_gains_kept(d, v, s, ns, cands, nc, gains);
    const int64_t q = ds_states(d, v, s, ns);
    if (q < 0) return -1;
    const double q_total = ds_q_total(d, s, ns);
    const size_t small = 2 * (size_t)k + 256, qr = (size_t)q * r;
    double base = 0.0;
    int have_base = 0;
    int c = 0;
    while (c < nc) {
        /* a block of consecutive small tables, or one large one alone */
        size_t cells = qr * (size_t)d->cards[cands[c]];
        int end = c + 1;
        const int alone = cells > small;
        if (!alone) {
            while (end < nc) {
                const size_t more = qr * (size_t)d->cards[cands[end]];
                if (more > small || cells + more > DS_BLOCK_CELLS) break;
                cells += more, end++;
            }
        }
        double with;
        if (alone) {
            const ds_code *code = d->codes + (size_t)cands[c] * k;
            const int64_t cu = d->cards[cands[c]];
            if (ds_counted_score(d, code, code, q, q * cu, r, q_total * cu, &with) < 0) return -1;
            gains[c] = with;
        } else {
            if (ds_grow((void **)&d->block, &d->block_cap, cells + qr, sizeof(double)) < 0)
                return -1;
            memset(d->block, 0, cells * sizeof(double));
            const int nb = end - c;
            const ds_code *codes[nb > 0 ? nb : 1];
            double *tables[nb > 0 ? nb : 1];
            size_t offset = 0;
            for (int b = 0; b < nb; b++) {
                codes[b] = d->codes + (size_t)cands[c + b] * k;
                tables[b] = d->block + offset;
                offset += qr * (size_t)d->cards[cands[c + b]];
            }
            const int64_t *cell = d->cell;
            const double *w = d->weights;
            /* the family without a candidate, counted in the same pass when it is small */
            const int fold = !have_base && qr <= small;
            double *margin = d->block + cells;
            if (fold) memset(margin, 0, qr * sizeof(double));
            if (!d->any_missing) /* no test: every row in every table */
                for (Py_ssize_t i = 0; i < k; i++) {
                    const int64_t at = cell[i];
                    const double wi = w[i];
                    if (fold) margin[at] += wi;
                    for (int b = 0; b < nb; b++) tables[b][(size_t)codes[b][i] * qr + at] += wi;
                }
            else
                for (Py_ssize_t i = 0; i < k; i++) {
                    if (cell[i] < 0) continue;
                    const int64_t at = cell[i];
                    const double wi = w[i];
                    if (fold) margin[at] += wi;
                    for (int b = 0; b < nb; b++) {
                        const ds_code x = codes[b][i];
                        if (x >= 0) tables[b][(size_t)x * qr + at] += wi;
                    }
                }
            if (fold) {
                base = ds_table_score(d, margin, NULL, (Py_ssize_t)q, r, q_total);
                have_base = 1;
            }
            for (int b = 0; b < nb; b++) {
                const int64_t cu = d->cards[cands[c + b]];
                gains[c + b] = ds_table_score(d, tables[b], NULL, (Py_ssize_t)(q * cu), r, q_total * cu);
            }
        }
        for (int b = c; b < end; b++) {
            const int u = cands[b];
            double without;
            if (d->missing[u]) {
                const ds_code *code = d->codes + (size_t)u * k;
                if (ds_counted_score(d, code, NULL, q, q, r, q_total, &without) < 0) return -1;
            } else {
                if (!have_base && ds_counted_score(d, NULL, NULL, q, q, r, q_total, &base) < 0)
                    return -1;
                have_base = 1, without = base;
            }
            gains[b] -= without;
        }
        c = end;
    }
    return 0;
}

/* The cache's key of (child, parents, candidate): candidate n for the family's own score. */
static void ds_make_key(ds_state *d, int v, const int *s, int ns, int skip, int cand) {
    uint64_t *key = d->key;
    memset(key, 0, (size_t)(d->w + 1) * sizeof(uint64_t));
    key[0] = ((uint64_t)(uint32_t)v << 32) | (uint32_t)cand;
    for (int j = 0; j < ns; j++)
        if (s[j] != skip) key[1 + s[j] / 64] |= (uint64_t)1 << (s[j] % 64);
}

/* The score of v's family with its parents S, on the rows observing it (cached). */
static int ds_family(ds_state *d, int v, const int *s, int ns, double *out) {
    ds_make_key(d, v, s, ns, -1, d->n);
    if (ds_get(&d->cache, d->key, out)) return 0;
    const int r = (int)d->cards[v];
    const double q_total = ds_q_total(d, s, ns);
    /* a dense table (as ds_counted_score's) read from a kept one, or counted and kept */
    const int dense = d->iw && q_total <= (double)d->k + 64 &&
                      q_total * r <= (double)(2 * (size_t)d->k + 256);
    int ord[ns + 1]; /* S, v */
    memcpy(ord, s, (size_t)ns * sizeof(int));
    ord[ns] = v;
    if (dense && ds_grow((void **)&d->table, &d->table_cap, (size_t)q_total * r, sizeof(double)) < 0)
        return -1;
    if (dense) {
        if (ds_dense_table(d, ord, ns + 1, (size_t)q_total * r, d->table) < 0) return -1;
        *out = ds_table_score(d, d->table, NULL, (Py_ssize_t)q_total, r, q_total);
    } else {
        const int64_t q = ds_states(d, v, s, ns);
        if (q < 0) return -1;
        if (ds_counted_score(d, NULL, NULL, q, q, r, q_total, out) < 0) return -1;
    }
    ds_make_key(d, v, s, ns, -1, d->n);
    return ds_put(&d->cache, d->key, *out);
}

/* The removal gains of v's parents ps not cached yet, from one count of the family's table
 * when it is dense and about as small as the rows: every removal's two families are counted
 * on the rows observing the whole family, the smaller one the table summed over a parent. */
static int ds_removals(ds_state *d, int v, const int *ps, int np_) {
    const Py_ssize_t k = d->k;
    const int r = (int)d->cards[v];
    int todo[np_ > 0 ? np_ : 1], nt = 0;
    for (int j = 0; j < np_; j++) {
        ds_make_key(d, v, ps, np_, ps[j], ps[j]);
        if (!ds_get(&d->cache, d->key, NULL)) todo[nt++] = j;
    }
    if (nt < 2) return 0; /* one: counted as any gain */
    const double q_full = ds_q_total(d, ps, np_);
    if (q_full * r > 4.0 * (double)k + 4096.0) return 0;
    const size_t cells = (size_t)q_full * r;
    if (ds_grow((void **)&d->block, &d->block_cap, 2 * cells, sizeof(double)) < 0) return -1;
    double *t = d->block, *m = d->block + cells;
    int ord[np_ + 1]; /* ps, v */
    memcpy(ord, ps, (size_t)np_ * sizeof(int));
    ord[np_] = v;
    if (d->iw) {
        if (ds_dense_table(d, ord, np_ + 1, cells, t) < 0) return -1;
    } else {
        memset(t, 0, cells * sizeof(double));
        const ds_code *cv = d->codes + (size_t)v * k;
        for (Py_ssize_t i = 0; i < k; i++) {
            if (cv[i] < 0) continue;
            int64_t at = 0;
            int j = 0;
            for (; j < np_; j++) {
                const ds_code x = d->codes[(size_t)ps[j] * k + i];
                if (x < 0) break;
                at = at * d->cards[ps[j]] + x;
            }
            if (j == np_) t[at * r + cv[i]] += d->weights[i];
        }
    }
    const double full = ds_table_score(d, t, NULL, (Py_ssize_t)q_full, r, q_full);
    for (int e = 0; e < nt; e++) {
        const int j = todo[e];
        const int64_t mid = d->cards[ps[j]];
        int64_t inner = r;
        for (int t2 = j + 1; t2 < np_; t2++) inner *= d->cards[ps[t2]];
        const int64_t outer = (int64_t)q_full * r / (mid * inner);
        memset(m, 0, (size_t)(outer * inner) * sizeof(double));
        for (int64_t o = 0; o < outer; o++)
            for (int64_t x = 0; x < mid; x++) {
                const double *from = t + (o * mid + x) * inner;
                double *to = m + o * inner;
                for (int64_t c = 0; c < inner; c++) to[c] += from[c];
            }
        const double without = ds_table_score(d, m, NULL, (Py_ssize_t)(outer * inner / r), r,
                                              q_full / (double)mid);
        ds_make_key(d, v, ps, np_, ps[j], ps[j]);
        if (ds_put(&d->cache, d->key, full - without) < 0) return -1;
    }
    return 0;
}

/* The gains of every move that changes v's parent set (dag_search._Graph._rescore). */
static int ds_rescore(ds_state *d, int v) {
    const int n = d->n, np_ = d->n_par[v];
    const int *ps = d->par + (size_t)v * n;
    for (int u = 0; u < n; u++)
        d->add_gain[u * n + v] = -INFINITY, d->remove_gain[u * n + v] = -INFINITY;
    if (np_ < d->max_parents) {
        double family = (double)d->cards[v] * ds_q_total(d, ps, np_);
        /* a fitted network keeps a family without the class once per class
         * (dag_search._within_cells) */
        const int cls = d->cls;
        int rooted = cls < 0 || v == cls;
        for (int j = 0; j < np_; j++) rooted |= ps[j] == cls;
        int nc = 0, nt = 0;
        for (int u = 0; u < n; u++)
            if (d->allowed[u * n + v] && !d->arcs[u * n + v] &&
                family * (double)d->cards[u] * (rooted || u == cls ? 1.0 : (double)d->cards[cls]) <=
                    d->max_cells)
                d->cands[nc++] = u;
        for (int c = 0; c < nc; c++) {
            double g;
            ds_make_key(d, v, ps, np_, -1, d->cands[c]);
            if (ds_get(&d->cache, d->key, &g)) d->add_gain[d->cands[c] * n + v] = g;
            else d->todo[nt++] = d->cands[c];
        }
        if (nt) {
            if (ds_compute_gains(d, v, ps, np_, d->todo, nt, d->found) < 0) return -1;
            for (int c = 0; c < nt; c++) {
                ds_make_key(d, v, ps, np_, -1, d->todo[c]);
                if (ds_put(&d->cache, d->key, d->found[c]) < 0) return -1;
                d->add_gain[d->todo[c] * n + v] = d->found[c];
            }
        }
    }
    if (ds_removals(d, v, ps, np_) < 0) return -1;
    for (int j = 0; j < np_; j++) {
        const int u = ps[j];
        double g;
        ds_make_key(d, v, ps, np_, u, u);
        if (!ds_get(&d->cache, d->key, &g)) {
            int rest[np_ > 0 ? np_ : 1], nr = 0;
            for (int t = 0; t < np_; t++)
                if (ps[t] != u) rest[nr++] = ps[t];
            if (ds_compute_gains(d, v, rest, nr, &u, 1, &g) < 0) return -1;
            ds_make_key(d, v, ps, np_, u, u);
            if (ds_put(&d->cache, d->key, g) < 0) return -1;
        }
        d->remove_gain[u * n + v] = -g;
    }
    return 0;
}

static void ds_compute_reach(ds_state *d) {
    const int n = d->n, w = d->w;
    /* Kahn's order, then each node's reach from its children's, last first */
    int head = 0, tail = 0;
    for (int v = 0; v < n; v++) {
        d->indegree[v] = d->n_par[v];
        if (!d->indegree[v]) d->order[tail++] = v;
    }
    while (head < tail) {
        const int a = d->order[head++];
        for (int v = 0; v < n; v++)
            if (d->arcs[a * n + v] && --d->indegree[v] == 0) d->order[tail++] = v;
    }
    for (int t = tail - 1; t >= 0; t--) {
        const int a = d->order[t];
        uint64_t *ra = d->reach + (size_t)a * w;
        memset(ra, 0, w * sizeof(uint64_t));
        for (int c = 0; c < n; c++)
            if (d->arcs[a * n + c]) {
                const uint64_t *rc = d->reach + (size_t)c * w;
                for (int j = 0; j < w; j++) ra[j] |= rc[j];
                ra[c / 64] |= (uint64_t)1 << (c % 64);
            }
    }
    d->reach_ok = 1;
}


/* gains (3, n, n) of every move, -inf where illegal (dag_search._Graph.moves), the tabu moves
 * and (without reversal) the reversals barred. */
static void ds_moves(ds_state *d, const int *tabu, int n_tabu, int reversal) {
    const int n = d->n, w = d->w;
    if (!d->reach_ok) ds_compute_reach(d);
    double *g = d->gains;
    for (int u = 0; u < n; u++) {
        uint64_t *o = d->other + (size_t)u * w;
        memset(o, 0, w * sizeof(uint64_t));
        for (int c = 0; c < n; c++)
            if (d->arcs[u * n + c]) {
                const uint64_t *rc = d->reach + (size_t)c * w;
                for (int j = 0; j < w; j++) o[j] |= rc[j];
            }
    }
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++) {
            const size_t uv = (size_t)u * n + v, vu = (size_t)v * n + u;
            const int room_v = d->n_par[v] < d->max_parents, room_u = d->n_par[u] < d->max_parents;
            int add = !d->arcs[uv] && !d->arcs[vu] && !DS_BIT(d->reach + (size_t)v * w, u) &&
                      d->allowed[uv] && room_v;
            g[uv] = add ? d->add_gain[uv] : -INFINITY;
            int remove = d->arcs[uv] && !d->required[uv];
            g[(size_t)n * n + uv] = remove ? d->remove_gain[uv] : -INFINITY;
            int rev = reversal && remove && !DS_BIT(d->other + (size_t)u * w, v) && d->allowed[vu] &&
                      room_u;
            g[2 * (size_t)n * n + uv] = rev ? d->remove_gain[uv] + d->add_gain[vu] : -INFINITY;
        }
    for (int t = 0; t < n_tabu; t++)
        g[((size_t)tabu[3 * t] * n + tabu[3 * t + 1]) * n + tabu[3 * t + 2]] = -INFINITY;
}

/* The best move's gain (-inf when none) and index into gains. */
static double ds_best(ds_state *d, int tabu_on, int reversal, size_t *index) {
    ds_moves(d, tabu_on ? d->tabu : NULL, tabu_on ? d->n_tabu : 0, reversal);
    const size_t all = 3 * (size_t)d->n * d->n;
    double top = -INFINITY;
    for (size_t e = 0; e < all; e++)
        if (d->gains[e] > top) top = d->gains[e];
    if (!isfinite(top)) return top;
    const double floor_ = top - ds_tolerance(d, d->score);
    for (size_t e = 0; e < all; e++)
        if (d->gains[e] >= floor_) {
            *index = e;
            return d->gains[e];
        }
    return top;
}

static void ds_link(ds_state *d, int u, int v, int on) {
    const int n = d->n;
    int *ps = d->par + (size_t)v * n;
    d->arcs[u * n + v] = (uint8_t)on;
    if (on) {
        int j = d->n_par[v]++;
        while (j > 0 && ps[j - 1] > u) ps[j] = ps[j - 1], j--;
        ps[j] = u;
    } else {
        int j = 0;
        while (ps[j] != u) j++;
        for (; j + 1 < d->n_par[v]; j++) ps[j] = ps[j + 1];
        d->n_par[v]--;
    }
}

/* Make the move; *undo (3 ints) the move that undoes it (dag_search._Graph.apply). */
static int ds_apply(ds_state *d, int kind, int u, int v, int *undo) {
    const int n = d->n, w = d->w;
    const size_t uv = (size_t)u * n + v;
    if (kind == DS_ADD) d->score += d->add_gain[uv];
    else if (kind == DS_REMOVE) d->score += d->remove_gain[uv];
    else d->score += d->remove_gain[uv] + d->add_gain[(size_t)v * n + u];
    if (kind == DS_ADD) {
        ds_link(d, u, v, 1);
        if (d->reach_ok) {
            /* u and what reaches it now reach v and what v reaches */
            uint64_t *out = d->other; /* scratch */
            memcpy(out, d->reach + (size_t)v * w, w * sizeof(uint64_t));
            out[v / 64] |= (uint64_t)1 << (v % 64);
            for (int a = 0; a < n; a++)
                if (a == u || DS_BIT(d->reach + (size_t)a * w, u)) {
                    uint64_t *ra = d->reach + (size_t)a * w;
                    for (int j = 0; j < w; j++) ra[j] |= out[j];
                }
        }
        undo[0] = DS_REMOVE, undo[1] = u, undo[2] = v;
        return ds_rescore(d, v);
    }
    d->reach_ok = 0;
    ds_link(d, u, v, 0);
    if (ds_rescore(d, v) < 0) return -1;
    if (kind == DS_REMOVE) {
        undo[0] = DS_ADD, undo[1] = u, undo[2] = v;
        return 0;
    }
    ds_link(d, v, u, 1);
    undo[0] = DS_REVERSE, undo[1] = v, undo[2] = u;
    return ds_rescore(d, u);
}

static int ds_push(ds_state *d, int kind, int u, int v) {
    if (ds_grow((void **)&d->path, &d->path_cap, d->path_len + 1, sizeof(ds_move)) < 0) return -1;
    d->path[d->path_len++] = (ds_move){kind, u, v, d->score};
    return 0;
}

/* The tabu list after a move: its undoing last, the last tabu_length kept (none kept: the
 * list unchanged, as dag_search._Graph.make). */
static void ds_bar(ds_state *d, const int *undo, int tabu_length) {
    if (!tabu_length) return;
    memcpy(d->tabu + 3 * d->n_tabu, undo, 3 * sizeof(int));
    d->n_tabu++;
    if (d->n_tabu > tabu_length) {
        memmove(d->tabu, d->tabu + 3 * (d->n_tabu - tabu_length), 3 * tabu_length * sizeof(int));
        d->n_tabu = tabu_length;
    }
}

/* The graph's key (each node's parents as bits); returns 1 when seen before, records it. */
static int ds_met(ds_state *d, ds_map *set, int *failed) {
    const int n = d->n, w = d->w;
    uint64_t *key = d->graph_key;
    memset(key, 0, (size_t)n * w * sizeof(uint64_t));
    for (int v = 0; v < n; v++)
        for (int j = 0; j < d->n_par[v]; j++) {
            int u = d->par[(size_t)v * n + j];
            key[(size_t)v * w + u / 64] |= (uint64_t)1 << (u % 64);
        }
    if (ds_get(set, key, NULL)) return 1;
    if (ds_put(set, key, 0.0) < 0) *failed = 1;
    return 0;
}

static void ds_clear(ds_map *m) {
    memset(m->full, 0, m->cap);
    m->used = 0;
}

/* A walk from the current graph (tabu list as set): hill climbing (walk 0) or the tabu walk;
 * the best graph met into best_arcs. */
static int ds_walk(ds_state *d, int walk, int tabu_length, int reversal, int64_t max_iter) {
    const int n = d->n;
    int failed = 0, undo[3];
    ds_clear(&d->seen);
    ds_met(d, &d->seen, &failed);
    memcpy(d->best_arcs, d->arcs, (size_t)n * n);
    double best_score = d->score;
    int64_t moves = 0, stale = 0;
    const int64_t patience = tabu_length > 1 ? tabu_length : 1;
    while ((max_iter < 0 || moves < max_iter) && !failed) {
        if (walk == 1 && stale >= patience) break;
        size_t e = 0;
        double gain = ds_best(d, 1, reversal, &e);
        if (walk == 0 ? !(gain > ds_tolerance(d, d->score)) : !isfinite(gain)) break;
        const size_t nn = (size_t)n * n;
        const int kind = (int)(e / nn), u = (int)(e % nn / n), v = (int)(e % n);
        if (ds_apply(d, kind, u, v, undo) < 0 || ds_push(d, kind, u, v) < 0) return -1;
        ds_bar(d, undo, tabu_length);
        moves++;
        int met = ds_met(d, &d->seen, &failed);
        if (walk == 0) {
            memcpy(d->best_arcs, d->arcs, nn);
            if (met) break;
        } else if (!met && d->score > best_score + ds_tolerance(d, best_score)) {
            memcpy(d->best_arcs, d->arcs, nn);
            best_score = d->score, stale = 0;
        } else
            stale++;
    }
    return failed ? -1 : 0;
}

/* Set the graph to arcs (parents from it), its score the sum of its families', every gain. */
static int ds_set_graph(ds_state *d, const uint8_t *arcs) {
    const int n = d->n;
    memcpy(d->arcs, arcs, (size_t)n * n);
    for (int v = 0; v < n; v++) {
        d->n_par[v] = 0;
        for (int u = 0; u < n; u++)
            if (arcs[u * n + v]) d->par[(size_t)v * n + d->n_par[v]++] = u;
    }
    d->reach_ok = 0;
    for (int v = 0; v < n; v++)
        if (ds_rescore(d, v) < 0) return -1;
    return 0;
}

static int ds_network(ds_state *d, const uint8_t *arcs, double *total) {
    const int n = d->n;
    int *ps = d->todo;
    double sum = 0.0;
    for (int v = 0; v < n; v++) {
        int np_ = 0;
        for (int u = 0; u < n; u++)
            if (arcs[u * n + v]) ps[np_++] = u;
        double f;
        if (ds_family(d, v, ps, np_, &f) < 0) return -1;
        sum += f;
    }
    *total = sum;
    return 0;
}

/* v's family with the parents S on the rows d->observing marks, into *out. */
static int ds_family_on(ds_state *d, int v, const int *s, int ns, double *out) {
    const int64_t q = ds_states(d, v, s, ns);
    if (q < 0) return -1;
    for (Py_ssize_t i = 0; i < d->k; i++)
        if (!d->observing[i]) d->cell[i] = -1;
    return ds_counted_score(d, NULL, NULL, q, q, (int)d->cards[v], ds_q_total(d, s, ns), out);
}

/* FamilyScores.network_change: what replacing the graph `before` by `after` changes in the
 * score, each changed family and its old one on the rows observing the child and both parent
 * sets (the difference of ds_network's sums rewards families seen on fewer rows). */
static int ds_change(ds_state *d, const uint8_t *before, const uint8_t *after, double *out) {
    const int n = d->n;
    int *pb = d->todo, *pa = d->cands, *both = d->order;
    double sum = 0.0;
    for (int v = 0; v < n; v++) {
        int nb = 0, na = 0, nu = 0, differ = 0, missing = d->missing[v];
        for (int u = 0; u < n; u++) {
            const int b = before[u * n + v], a = after[u * n + v];
            if (b) pb[nb++] = u;
            if (a) pa[na++] = u;
            if (a || b) both[nu++] = u, missing |= d->missing[u];
            differ |= a != b;
        }
        if (!differ) continue;
        double fa, fb;
        if (!missing) {
            if (ds_family(d, v, pa, na, &fa) < 0 || ds_family(d, v, pb, nb, &fb) < 0) return -1;
        } else {
            /* the rows observing v and both parent sets */
            const ds_code *cv = d->codes + (size_t)v * d->k;
            for (Py_ssize_t i = 0; i < d->k; i++) d->observing[i] = cv[i] >= 0;
            for (int j = 0; j < nu; j++) {
                if (!d->missing[both[j]]) continue;
                const ds_code *cu = d->codes + (size_t)both[j] * d->k;
                for (Py_ssize_t i = 0; i < d->k; i++) d->observing[i] &= cu[i] >= 0;
            }
            if (ds_family_on(d, v, pa, na, &fa) < 0 || ds_family_on(d, v, pb, nb, &fb) < 0)
                return -1;
        }
        sum += fa - fb;
    }
    *out = sum;
    return 0;
}

/* The whole iterated search (dag_search.iterated_search; restarts 0: the first walk). */
static int ds_run(ds_state *d, const uint8_t *start, int walk, int tabu_length, int reversal,
                  int64_t max_iter, int restarts, int perturbation, const double *uniforms) {
    const int n = d->n;
    const size_t nn = (size_t)n * n;
    if (ds_set_graph(d, start) < 0 || ds_network(d, start, &d->score) < 0) return -1;
    d->n_tabu = 0;
    if (ds_walk(d, walk, tabu_length, reversal, max_iter) < 0) return -1;
    uint8_t *best = d->keep_arcs;
    memcpy(best, d->best_arcs, nn);
    double best_score;
    if (ds_network(d, best, &best_score) < 0) return -1;
    size_t kept = d->path_len;
    int failed = 0;
    for (int t = 0; t < restarts; t++) {
        if (ds_set_graph(d, best) < 0 || ds_network(d, best, &d->score) < 0) return -1;
        size_t mark = d->path_len;
        int undo[3 * (perturbation > 0 ? perturbation : 1)], made = 0;
        for (int p = 0; p < perturbation; p++) {
            ds_moves(d, NULL, 0, 1);
            /* a reversal first: it undoes a choice of direction, the choice a tie decides */
            const double *g = d->gains + 2 * nn;
            size_t legal = 0, from = 2 * nn;
            for (size_t e = 0; e < nn; e++) legal += isfinite(g[e]) != 0;
            if (!legal) {
                from = 0;
                for (size_t e = 0; e < 3 * nn; e++) legal += isfinite(d->gains[e]) != 0;
            }
            if (!legal) break;
            size_t pick = (size_t)(uniforms[(size_t)t * perturbation + p] * (double)legal);
            if (pick >= legal) pick = legal - 1;
            size_t e = from;
            for (;; e++)
                if (isfinite(d->gains[e]) && pick-- == 0) break;
            const int kind = (int)(e / nn), u = (int)(e % nn / n), v = (int)(e % n);
            if (ds_apply(d, kind, u, v, undo + 3 * made) < 0 || ds_push(d, kind, u, v) < 0)
                return -1;
            made++;
        }
        if (ds_met(d, &d->tried, &failed)) {
            d->path_len = mark;
            continue;
        }
        if (failed) return -1;
        d->n_tabu = made;
        memcpy(d->tabu, undo, 3 * made * sizeof(int));
        if (ds_walk(d, walk, tabu_length, reversal, max_iter) < 0) return -1;
        double change;
        if (ds_change(d, best, d->best_arcs, &change) < 0) return -1;
        if (change > ds_tolerance(d, best_score)) {
            memcpy(best, d->best_arcs, nn);
            if (ds_network(d, best, &best_score) < 0) return -1;
            /* this restart's moves follow the kept path */
            memmove(d->path + kept, d->path + mark, (d->path_len - mark) * sizeof(ds_move));
            d->path_len = kept + (d->path_len - mark);
            kept = d->path_len;
        } else
            d->path_len = mark;
    }
    d->path_len = kept;
    memcpy(d->best_arcs, best, nn);
    return 0;
}

static void ds_free(ds_state *d) {
    for (int j = 0; j < d->n_memos; j++) free(d->memos[j]);
    ds_map_free(&d->cache), ds_map_free(&d->seen), ds_map_free(&d->tried);
    free(d->arcs), free(d->n_par), free(d->par), free(d->reach), free(d->other);
    free(d->add_gain), free(d->remove_gain), free(d->gains), free(d->key), free(d->graph_key);
    free(d->ids), free(d->cell), free(d->touched), free(d->stamp), free(d->missing), free(d->observing), free(d->remap), free(d->table), free(d->block), free(d->cands), free(d->todo);
    free(d->order), free(d->indegree), free(d->found), free(d->path), free(d->tabu);
    free(d->best_arcs), free(d->keep_arcs);
    ds_map_free(&d->sets), free(d->set_key), free(d->iw), free(d->scodes), free(d->cell32), free(d->kept), free(d->kept_vars);
    free(d->entry_at), free(d->entry_vars), free(d->iblock);
}

static PyObject *dag_search(PyObject *self, PyObject *args) {
    PyObject *obj[7];
    int score_kind, max_parents, walk, tabu_length, reversal, restarts, perturbation, cls;
    double prior, n_rows, max_cells, rel_tol;
    long long max_iter;
    if (!PyArg_ParseTuple(args, "OOOOOOOiddddiiiiLiii", &obj[0], &obj[1], &obj[2], &obj[3],
                          &obj[4], &obj[5], &obj[6], &score_kind, &prior, &n_rows, &max_cells,
                          &rel_tol, &max_parents, &walk, &tabu_length, &reversal, &max_iter,
                          &restarts, &perturbation, &cls))
        return NULL;
    /* codes (n, k) int16, weights (k) float64, cards (n) int64, start, allowed, required (n, n)
     * uint8, uniforms (restarts * perturbation) float64 */
    const char *names[7] = {"codes", "weights", "cards", "start", "allowed", "required", "uniforms"};
    const char *kinds[7] = {"h", "d", "lq", "B", "B", "B", "d"};
    const int sizes[7] = {2, 8, 8, 1, 1, 1, 8};
    const int dims[7] = {2, 1, 1, 2, 2, 2, 1};
    Py_buffer b[7];
    int got = 0;
    PyObject *result = NULL;
    ds_state d;
    memset(&d, 0, sizeof d);
    for (int j = 0; j < 7; j++) {
        if (PyObject_GetBuffer(obj[j], &b[j], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
        got++;
        const char *f = native_format(b[j].format);
        if (!f || f[0] == '\0' || f[1] != '\0' || !strchr(kinds[j], f[0]) ||
            b[j].itemsize != sizes[j] || b[j].ndim != dims[j]) {
            PyErr_Format(PyExc_TypeError, "dag_search: %s has the wrong type or shape", names[j]);
            goto done;
        }
    }
    const int n = (int)b[2].shape[0];
    const Py_ssize_t k = b[1].shape[0];
    if (b[0].shape[0] != n || b[0].shape[1] != k || b[3].shape[0] != n || b[3].shape[1] != n ||
        b[4].shape[0] != n || b[4].shape[1] != n || b[5].shape[0] != n || b[5].shape[1] != n ||
        restarts < 0 || perturbation < 0 || b[6].shape[0] < (Py_ssize_t)restarts * perturbation ||
        score_kind < DS_BDEU || score_kind > DS_BDS || walk < 0 || walk > 1 || tabu_length < 0 ||
        n < 1) {
        PyErr_SetString(PyExc_ValueError, "dag_search: inconsistent shapes or options");
        goto done;
    }
    const ds_code *codes = b[0].buf;
    const int64_t *cards = b[2].buf;
    for (int v = 0; v < n; v++) {
        if (cards[v] < 1 || cards[v] > INT16_MAX) {
            PyErr_SetString(PyExc_ValueError, "dag_search: a variable's number of states");
            goto done;
        }
        for (Py_ssize_t i = 0; i < k; i++)
            if (codes[(size_t)v * k + i] >= cards[v]) {
                PyErr_SetString(PyExc_ValueError, "dag_search: a code out of its range");
                goto done;
            }
    }
    d.n = n, d.k = k, d.w = (n + 63) / 64;
    d.codes = codes, d.weights = b[1].buf, d.cards = cards;
    d.score_kind = score_kind, d.prior = prior, d.n_rows = n_rows, d.max_cells = max_cells;
    d.rel_tol = rel_tol, d.max_parents = max_parents < 0 ? n : max_parents;
    d.cls = cls >= 0 && cls < n ? cls : -1;
    d.allowed = b[4].buf, d.required = b[5].buf;
    const size_t nn = (size_t)n * n;
    const int tabu_cap = (tabu_length > perturbation ? tabu_length : perturbation) + 1;
    d.arcs = malloc(nn), d.n_par = calloc(n, sizeof(int)), d.par = malloc(nn * sizeof(int));
    d.reach = calloc((size_t)n * d.w, 8), d.other = calloc((size_t)n * d.w, 8);
    d.add_gain = malloc(nn * 8), d.remove_gain = malloc(nn * 8), d.gains = malloc(3 * nn * 8);
    d.key = malloc((size_t)(d.w + 1) * 8), d.graph_key = malloc((size_t)n * d.w * 8);
    d.ids = malloc((size_t)(k > 0 ? k : 1) * 8), d.touched = malloc((size_t)(k > 0 ? k : 1) * 8);
    d.cell = malloc((size_t)(k > 0 ? k : 1) * 8);
    d.missing = calloc(n, 1), d.observing = malloc((size_t)(k > 0 ? k : 1));
    d.cands = malloc(n * sizeof(int)), d.todo = malloc(n * sizeof(int));
    d.order = malloc(n * sizeof(int)), d.indegree = malloc(n * sizeof(int));
    d.found = malloc(n * 8), d.tabu = malloc(3 * tabu_cap * sizeof(int));
    d.best_arcs = malloc(nn), d.keep_arcs = malloc(nn);
    if (!d.arcs || !d.n_par || !d.par || !d.reach || !d.other || !d.add_gain || !d.remove_gain ||
        !d.gains || !d.key || !d.graph_key || !d.ids || !d.cell || !d.touched || !d.missing || !d.observing || !d.cands || !d.todo || !d.order ||
        !d.indegree || !d.found || !d.tabu || !d.best_arcs || !d.keep_arcs ||
        ds_map_init(&d.cache, d.w + 1, 4096) < 0 || ds_map_init(&d.seen, n * d.w, 256) < 0 ||
        ds_map_init(&d.tried, n * d.w, 64) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (int v = 0; v < n; v++)
        for (Py_ssize_t i = 0; i < k && !d.missing[v]; i++) d.missing[v] = codes[(size_t)v * k + i] < 0;
    for (int v = 0; v < n; v++) d.any_missing |= d.missing[v];
    {
        const double *w = b[1].buf;
        double total = 0.0;
        int integral = 1;
        for (Py_ssize_t i = 0; i < k && integral; i++) {
            integral = w[i] >= 0 && w[i] == floor(w[i]);
            total += w[i];
        }
        /* every count an exact integer index into the memos */
        if (integral && total < 1e7) {
            d.memo_size = (size_t)total + 1;
            d.iw = malloc((size_t)(k > 0 ? k : 1) * sizeof(int32_t));
            d.set_key = malloc((size_t)d.w * sizeof(uint64_t));
            if (!d.iw || !d.set_key || ds_map_init(&d.sets, d.w, 1024) < 0) {
                PyErr_NoMemory();
                goto done;
            }
            d.scodes = malloc((size_t)n * (size_t)(k > 0 ? k : 1) * sizeof(ds_code));
            d.cell32 = malloc((size_t)(k > 0 ? k : 1) * sizeof(int32_t));
            int64_t *perm = malloc((size_t)(k > 0 ? k : 1) * sizeof(int64_t));
            if (!d.scodes || !d.cell32 || !perm) {
                free(perm);
                PyErr_NoMemory();
                goto done;
            }
            /* rows sorted by their codes fall in one cell after another, each add waiting on
             * the last; shuffled (integer counts: any order gives the same table) they rarely do */
            uint64_t x = 0x9E3779B97F4A7C15ull;
            for (Py_ssize_t i = 0; i < k; i++) perm[i] = i;
            for (Py_ssize_t i = k - 1; i > 0; i--) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                const Py_ssize_t j = (Py_ssize_t)(x % (uint64_t)(i + 1));
                const int64_t t = perm[i];
                perm[i] = perm[j], perm[j] = t;
            }
            d.unit = 1;
            for (Py_ssize_t i = 0; i < k; i++) d.iw[i] = (int32_t)w[perm[i]], d.unit &= d.iw[i] == 1;
            for (int v = 0; v < n; v++)
                for (Py_ssize_t i = 0; i < k; i++)
                    d.scodes[(size_t)v * k + i] = codes[(size_t)v * k + perm[i]];
            free(perm);
            /* a table read back costs about its cells, kept about twice that (copy, fresh
             * pages), counted the rows (a pass over them shared by a block of tables): the
             * tables of more than an eighth of the rows are counted again (cylinder.bands:
             * kept up to a quarter of its 535 rows, a tenth slower than none kept) */
            d.keep_max = (size_t)k / 8;
        }
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = ds_run(&d, b[3].buf, walk, tabu_length, reversal, (int64_t)max_iter, restarts,
                    perturbation, b[6].buf);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *arcs = PyBytes_FromStringAndSize((const char *)d.best_arcs, (Py_ssize_t)nn);
    PyObject *path = arcs ? PyList_New((Py_ssize_t)d.path_len) : NULL;
    for (size_t e = 0; path && e < d.path_len; e++) {
        PyObject *item = Py_BuildValue("(iiid)", d.path[e].kind, d.path[e].u, d.path[e].v,
                                       d.path[e].score);
        if (!item) {
            Py_CLEAR(path);
            break;
        }
        PyList_SET_ITEM(path, (Py_ssize_t)e, item);
    }
    if (path) result = Py_BuildValue("(NN)", arcs, path);
    else Py_XDECREF(arcs);
done:
    ds_free(&d);
    for (int j = 0; j < got; j++) PyBuffer_Release(&b[j]);
    return result;
}

/* -- module ---------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"column_ranges", column_ranges, METH_VARARGS,
     "column_ranges(block, low, high): per column min and max into two int64 arrays."},
    {"value_bits", value_bits, METH_VARARGS,
     "value_bits(block, bits[, high]): per column the values in [0, 64) as the bits of a uint64 "
     "(high: each column's largest value, when known)."},
    {"copy_cast", copy_cast, METH_VARARGS,
     "copy_cast(block, out): out[...] = block, any layouts, into int8 or int16."},
    {"count_families", count_families, METH_VARARGS,
     "count_families(codes, y, weights, child, parent, child_card, offsets, total, n_classes, flat, "
     "e0, e1)."},
    {"is_symmetric", is_symmetric, METH_VARARGS,
     "is_symmetric(matrix): whether a square float64 matrix equals its transpose exactly."},
    {"factorize_objects", factorize_objects, METH_VARARGS,
     "factorize_objects(values, codes): codes[i] = index of values[i]'s object among the distinct "
     "objects (by identity, first appearance first), which are returned as a list; None when most "
     "cells hold distinct objects (codes are then unset)."},
    {"factorize_object_columns", factorize_object_columns, METH_VARARGS,
     "factorize_object_columns(values, out): per column of a 2-D object array, out[:, j] (int8) = "
     "the index of each cell's object among the column's distinct objects (by identity, first "
     "appearance first); returns each column's distinct objects as a list, or None for a column "
     "of more than 127."},
    {"remap_codes", remap_codes, METH_VARARGS,
     "remap_codes(codes, tables): codes[i, j] = tables[j, codes[i, j]] in place (int8 codes in "
     "[0, 128), an int8 table of 128 entries per column)."},
    {"hdp_run", hdp_run, METH_VARARGS,
     "hdp_run(active, active_node, parent, start, group, node_n, node_t, cell_n, cell_t, record, "
     "leaves, sampled, row_of, position, tree_active, tree_record, tree_leaves, tree_sampled, "
     "tree_groups, concentration, log_concentration, stirling, p, acc, round_acc, rng, need, "
     "tree_lo, tree_hi, n_iter, burn_in, window, per_round, prior_shape, prior_rate, "
     "max_concentration, log_q_floor) -> 0 when done, 1 when it stopped for a larger table: the "
     "Gibbs sampler of bnclassify/parameters/hdp.py (see bnclassify/_native)."},
    {"hls_fit", hls_fit, METH_VARARGS,
     "hls_fit(parent, child_start, child_stop, ridge, counts, totals, beta, log_p, r, "
     "tolerance, max_steps, local) -> steps: Newton's method for the ridge-penalised log-linear "
     "tables of bnclassify/parameters/hierarchy.py, beta updated in place, the nodes' log "
     "probabilities into log_p (see bnclassify/_native)."},
    {"factorize_texts", factorize_texts, METH_VARARGS,
     "factorize_texts(columns, out, first): the codes of Arrow text columns (tuples of chunks "
     "(validity, offsets, data, offset, length, wide)) into out[:, first + j] (int8, the distinct "
     "values sorted by their bytes, -1 missing); returns each column's sorted distinct values as "
     "a list of str, or None where it gave the column up (more than 127 values, bad offsets, not "
     "UTF-8)."},
    {"loo_scores", loo_scores, METH_VARARGS,
     "loo_scores(family, parent, family_counts, parent_counts, y, weights, class_weight, "
     "class_total, inverse_r, criterion, total): selective KDB's leave-one-out losses of a block "
     "of rows, added to total."},
    {"loo_family_counts", loo_family_counts, METH_VARARGS,
     "loo_family_counts(codes, family, cards, y, weights, family_counts): one attribute's dense "
     "class-weighted tables at every depth of its parents, added to (see "
     "bnclassify/_native)."},
    {"loo_tables", loo_tables, METH_VARARGS,
     "loo_tables(codes, families, cards, y, weights, offsets, counts, chunk, perm, level, rows): "
     "every attribute's dense class-weighted tables at every depth of its parents, added to "
     "counts, the rows in chunks or by prefixes in loo_order's order (see bnclassify/_native)."},
    {"loo_order", loo_order, METH_VARARGS,
     "loo_order(codes, families, cards, first, y, perm, level, rows, limit) -> bool: the rows "
     "sorted by their class and the families' columns in order, the level at which each differs "
     "from the one before and their codes in that order, unless their prefixes exceed limit (see "
     "bnclassify/_native)."},
    {"loo_rows", loo_rows, METH_VARARGS,
     "loo_rows(codes, families, cards, first, y, weights, counts, offsets, parent_counts, "
     "parent_offsets, inverse_r, prior, start, total, criterion, chunk, group, perm, level, rows"
     "[, vector_step, record_cells, block_rows]) "
     "-> rows moved to logs: selective KDB's leave-one-out pass over chunks of rows, a group of "
     "attributes per chunk (every group per block of rows), or over the rows' prefixes in loo_order's order, the losses added to "
     "total (see bnclassify/_native)."},
    {"loo_parents", loo_parents, METH_VARARGS,
     "loo_parents(counts, offsets, r, parents, parent_offsets): every family's parent counts at "
     "every depth, its table summed over the attribute's values in order, written to parents "
     "(see bnclassify/_native)."},
    {"tree_pivots", tree_pivots, METH_VARARGS,
     "tree_pivots(matrices, pivots, smallest): the cancellation-free elimination pivots of a batch "
     "of column-scaled weight matrices, eliminated in place (see bnclassify/_native)."},
    {"tree_log_sums", tree_log_sums, METH_VARARGS,
     "tree_log_sums(cells, ratio, base, fill, smallest, out, low, scale, mu, pairs): for each row and class "
     "the sum of the log pivots of the cancellation-free elimination of base * ratio[c, cells, "
     "cells] + fill; scale (m, m) or None: symmetric weights, one triangle eliminated; mu (m, m) "
     "and pairs (m, m, m) or None: symmetric weights scaled by pairs (see bnclassify/_native)."},
    {"family_cells", family_cells, METH_VARARGS,
     "family_cells(codes, cards, attributes, family, parent, sizes): each row's parent "
     "configuration and family at every depth of a selective KDB's attributes (see "
     "bnclassify/_native)."},
    {"pair_information", pair_information, METH_VARARGS,
     "pair_information(codes, y, weights, cards, n_classes, cmi, rows): I(X_i; X_j | C) and the "
     "rows observing both, of every pair of columns (see bnclassify/_native)."},
    {"lone_families", lone_families, METH_VARARGS,
     "lone_families(family, parent, weights, n_families, n_parents) -> (families, parents): "
     "selective KDB's families of a single row dropped and the rest renumbered, in place (see "
     "bnclassify/_native)."},
    {"cell_counts", cell_counts, METH_VARARGS,
     "cell_counts(cells, y, weights, counts): counts[cells[e], y[i]] += weights[i] over the "
     "cells >= 0 of a (k, n) array, in order."},
#if defined(__GNUC__)
    {"aode_block", aode_block, METH_VARARGS,
     "aode_block(codes, offsets, child_of, sp_column, sp_weight, frequency, min_frequency, "
     "marginalize, table, sp_table, top, total, n_eligible, pair, log_totals, unscale): a block "
     "of "
     "super-parents' weighted "
     "joints of the averaged one-dependence estimators merged into each row's running "
     "log-sum-exp (see bnclassify/_native)."},
    {"aode_proba", aode_proba, METH_VARARGS,
     "aode_proba(top, total, out): P(c | x) from aode_block's running log-sum-exp; returns "
     "the rows left as NaN (see bnclassify/_native)."},
#endif
    {"gathered_sums", gathered_sums, METH_VARARGS,
     "gathered_sums(matrix, picks, out): out[r] = the sum, in turn, of matrix's rows picks[r] "
     "(see bnclassify/_native)."},
    {"table_sums", table_sums, METH_VARARGS,
     "table_sums(codes, family, strides, offsets, cells, zero, left_out, out): each row's table "
     "nodes' cells added in turn (see bnclassify/_native)."},
    {"open_pairs", open_pairs, METH_VARARGS,
     "open_pairs(matrix, threshold, root, out) -> count: the flat positions i * m + j, i < j, of "
     "the pairs heavier than threshold whose ends have different roots (see bnclassify/_native)."},
    {"dag_search", dag_search, METH_VARARGS,
     "dag_search(codes, weights, cards, start, allowed, required, uniforms, score, prior, n_rows, "
     "max_cells, relative_tolerance, max_parents, walk, tabu_length, reversal, max_iter, restarts, "
     "perturbation, class_variable) -> (arcs, path): the DAG search of bnclassify/dag_search.py, every family "
     "counted and scored here (see bnclassify/_native/search.py)."},
    {"spanning_edges", spanning_edges, METH_VARARGS,
     "spanning_edges(rows, columns, parent, accepted, limit) -> taken: Kruskal's union-find over "
     "the candidate edges in the order given, parent updated in place (see bnclassify/_native)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "One-pass kernels for wide integer tables.", -1, methods,
    NULL, NULL, NULL, NULL};

/* Raised with every change of a kernel's arguments or results: _native/runtime.py refuses a stale build
 * (an optional build that fails leaves the previous library in place). */
#define KERNELS_VERSION 40

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", KERNELS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
