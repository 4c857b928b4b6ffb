/* One-pass kernels for wide integer tables and object columns (see bnclassify/_native.py, their only caller).
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
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    if (size == 1) bad = count_int8_t(base, n, s0, s1, y, w, child, parent, card, start, total, n_classes, e0, e1, flat);
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

/* -- loo_scores --------------------------------------------------------------------------------- */

/* Selective KDB's leave-one-out pass over a block of rows (bnclassify/classifiers/_selective.py
 * prepares the indices; _native.loo_scores is the numpy version and documents the arguments).
 * One row at a time: its K + 1 candidates' log joint scores live in a few hundred bytes, so the
 * pass reads each count once per row and writes nothing but the (K + 1, m + 1) totals. */
#define LOO_SEEN 1e-9

static double loo_row_loss(const double *joint, int64_t C, int64_t yi, int criterion) {
    double top = joint[0];
    int64_t best = 0;
    for (int64_t c = 1; c < C; c++)
        if (joint[c] > top) { top = joint[c]; best = c; }
    if (criterion == 1) return best != yi ? 1.0 : 0.0;
    double sum = 0.0;
    for (int64_t c = 0; c < C; c++) sum += exp(joint[c] - top);
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
static void loo_block(const int64_t *family, const int64_t *parent, const double *fc,
                      const double *pc, const int64_t *y, const double *w, const double *cw,
                      double class_total, const double *inverse_r, int64_t n, int64_t m,
                      int64_t D, int64_t C, int criterion, double *total, double *work) {
    double *joint = work, *terms = work + D * C, *prior = terms + D * C, *loss = prior + C;
    for (int64_t i = 0; i < n; i++) {
        const int64_t yi = y[i];
        const double wi = w[i], held = wi < 1.0 ? wi : 1.0;
        const double log_rows = log(class_total - held + 1.0);
        for (int64_t c = 0; c < C; c++)
            prior[c] = log(cw[c] - (c == yi ? held : 0.0) + 1.0 / (double)C) - log_rows;
        memcpy(joint, prior, C * sizeof(double));
        int64_t hi = 0;
        loss[0] = loo_row_loss(joint, C, yi, criterion) * wi;
        for (int64_t k = 0; k < D; k++) total[k * (m + 1)] += loss[0];
        for (int64_t u = 0; u < m; u++) {
            const int64_t *fam = family + u * D * n + i, *par = parent + u * D * n + i;
            if (fam[0] >= 0) {
                int64_t reach = 0;
                const double a = inverse_r[u];
                for (int64_t d = 0; d < D; d++) {
                    const int64_t f = fam[d * n];
                    if (f < 0) break;
                    const double *counts = fc + f * C, *parents = pc + par[d * n] * C;
                    double *term = terms + d * C;
                    for (int64_t c = 0; c < C; c++) {
                        const double mine = c == yi ? held : 0.0;
                        term[c] = log(counts[c] - mine + a) - log(parents[c] - mine + 1.0);
                    }
                    if (d) {
                        double others = 0.0;
                        for (int64_t c = 0; c < C; c++) others += counts[c];
                        others -= held;
                        if (!(others > LOO_SEEN * (1.0 + others))) break;
                        reach = d;
                    }
                }
                for (; hi < reach; hi++) memcpy(joint + (hi + 1) * C, joint + hi * C, C * sizeof(double));
                for (int64_t k = 0; k <= hi; k++) {
                    const double *term = terms + (k < reach ? k : reach) * C;
                    double *row = joint + k * C;
                    for (int64_t c = 0; c < C; c++) row[c] += term[c];
                    loss[k] = loo_row_loss(row, C, yi, criterion) * wi;
                }
            }
            for (int64_t k = 0; k < D; k++) total[k * (m + 1) + u + 1] += loss[k < hi ? k : hi];
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
    work = malloc(((2 * D + 1) * C + D) * sizeof(double));
    if (!work) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    loo_block(family, parent, b[2].buf, b[3].buf, y, b[5].buf, b[6].buf, class_total, b[7].buf,
              n, m, D, C, criterion, b[8].buf, work);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(work);
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
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
    {"loo_scores", loo_scores, METH_VARARGS,
     "loo_scores(family, parent, family_counts, parent_counts, y, weights, class_weight, "
     "class_total, inverse_r, criterion, total): selective KDB's leave-one-out losses of a block "
     "of rows, added to total."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "One-pass kernels for wide integer tables.", -1, methods,
    NULL, NULL, NULL, NULL};

/* Raised with every change of a kernel's arguments or results: _native.py refuses a stale build
 * (an optional build that fails leaves the previous library in place). */
#define KERNELS_VERSION 8

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", KERNELS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
