/* The data a Fathom GPU kernel reads and writes: one definition for Swift (through the
 * CFathomGPU module), the host emulation (C++) and NVRTC (CUDA C++, which has no standard
 * headers: only built-in types here). Swift checks at run time that its own layouts of
 * Complex<D> and BLAStep<D> match these before it uploads them as they are. */
#ifndef FATHOM_KERNEL_ABI_H
#define FATHOM_KERNEL_ABI_H

/* FloatExp: significand in [1, 2) in magnitude (or 0) times 2^e. */
typedef struct { double s; long long e; } FKFloatExp;

/* DoubleDouble: the unevaluated sum hi + lo; DoubleDoubleExp: (m.hi + m.lo) * 2^e, |m.hi| in
 * [1, 2) (or m = 0). */
typedef struct { double hi, lo; } FKDoubleDouble;
typedef struct { FKDoubleDouble m; long long e; } FKDoubleDoubleExp;

/* BLAStep<D> for D = Double, FloatExp, DoubleDouble and DoubleDoubleExp, field for field. */
typedef struct {
    double ar, ai, br, bi, radius, stretchSignificand;
    long long stretchExponent;
    double inverseRadiusSquared;
} FKStepDouble;
typedef struct {
    FKFloatExp ar, ai, br, bi, radius;
    double stretchSignificand;
    long long stretchExponent;
    FKFloatExp inverseRadiusSquared;
} FKStepFloatExp;

typedef struct {
    FKDoubleDouble ar, ai, br, bi, radius;
    double stretchSignificand;
    long long stretchExponent;
    FKDoubleDouble inverseRadiusSquared;
} FKStepDoubleDouble;
typedef struct {
    FKDoubleDoubleExp ar, ai, br, bi, radius;
    double stretchSignificand;
    long long stretchExponent;
    FKDoubleDoubleExp inverseRadiusSquared;
} FKStepDoubleDoubleExp;

/* LAEntry<D> (LATable.swift), field for field, for D = Double, FloatExp, DoubleDouble and
 * DoubleDoubleExp (S: D's layout here). */
#define FK_LA_ENTRY(S, NAME) \
    typedef struct { \
        S zcr, zci, ccr, cci, threshold, dcThreshold, inverseThreshold, inverseDCThreshold; \
        double stretchSignificand; \
        long long stretchExponent; \
        double ccSignificand; \
        long long ccExponent; \
        long long length; \
        long long chainEnd; \
    } NAME;
FK_LA_ENTRY(double, FKLAEntryDouble)
FK_LA_ENTRY(FKFloatExp, FKLAEntryFloatExp)
FK_LA_ENTRY(FKDoubleDouble, FKLAEntryDoubleDouble)
FK_LA_ENTRY(FKDoubleDoubleExp, FKLAEntryDoubleDoubleExp)

/* The delta types of a perturbation pass (the kernels' names end in their names). */
enum { FK_DELTA_DOUBLE = 0, FK_DELTA_FLOATEXP = 1, FK_DELTA_DOUBLEDOUBLE = 2, FK_DELTA_DOUBLEDOUBLEEXP = 3 };

/* One table as the kernel sees it (ApproximationTable.swift): BLA levels (steps == 0: none) and LA
 * entries in chains (la == 0: none). */
typedef struct {
    const void *steps;          /* FKStepDouble, FKStepFloatExp, FKStepDoubleDouble or FKStepDoubleDoubleExp */
    const void *radii;          /* D: double, FKFloatExp, FKDoubleDouble or FKDoubleDoubleExp */
    const long long *levelStarts;
    long long levels;
    const void *la;             /* FKLAEntry... of D, the chains one after another */
    const int *chainAt;         /* per orbit index: the chain's offset, or minus the distance to the next start */
    double laLoadScale;         /* (LA epsilon / the table's epsilon)^2 */
} FKTable;

/* What one item (pixel) of a perturbation pass ends with; the host turns it into the pixel's
 * result (the smooth value and the precision estimate need logarithms, which stay on the
 * CPU so that both backends share them bit for bit). */
enum { FK_MAX_ITERATIONS = 0, FK_ESCAPED = 1, FK_BOUNDED = 2 };
typedef struct {
    unsigned int kind;          /* FK_MAX_ITERATIONS, FK_ESCAPED or FK_BOUNDED */
    unsigned int n2;
    unsigned int n;             /* the escape count (FK_ESCAPED) */
    unsigned int steps;         /* loop steps, BLA and plain */
    unsigned int approximationSteps;
    unsigned int pad;
    double r2;                  /* |z|^2 at escape */
    double errorScale;          /* the precision estimate's running value, errorScale * 2^errorScaleExponent:
                                   |dz/dc|^2 (the product estimate) or the error's variance (variance) */
    long long errorScaleExponent;
    double blaLoad;
    double ratio;               /* detect mode: |z|^2 / |Z|^2 where it glitched (NaN: it did not) */
} FKPixelOut;

enum { FK_REBASE = 0, FK_DETECT = 1 };
enum { FK_MAX_POWER = 16 };

/* The orbit read from its compressed form as each pixel goes (CompressedOrbit.swift; the
 * kernel's cursor is KernelOrbit.swift's StreamedCursor): every step predicted from the one
 * before by z^p + c in Double or double-double and corrected by its nibbles, a key every 128
 * steps, the steps below 2^-1000 from their own table. keys == 0: the orbit is decoded. */
typedef struct {
    const unsigned char *bytes; /* zigzag varints of nibbles, two a byte, low nibble first */
    long long nibbleCount;
    const double *keys;         /* per key: re, im (and reLow, imLow with lowWords) */
    const long long *keyNibbles;/* per key: the nibble where the step after it starts */
    const long long *tinySteps; /* the tiny table's steps, ascending */
    const void *tinyValues;     /* Complex<D> per tiny step */
    long long tinyCount;
    double c[4];                /* c's re.hi, re.lo, im.hi, im.lo (double-double) */
    int power;
    int lowWords;               /* the stored values have low words */
    int wide;                   /* D takes both words (106-bit deltas with low words) */
    int pad;
} FKStream;

/* One perturbation pass: items first ..< first + launchCount of count. */
typedef struct {
    const void *orbit;          /* Complex<D>: Z(0) ... Z(orbitCount - 1); 0 where streamed */
    long long orbitCount;
    const void *rebaseOrbit;    /* the critical orbit (Z(0) = 0) */
    long long rebaseCount;
    FKTable table;
    FKTable rebaseTable;
    const void *dc;             /* Complex<D> per item; null: from columns and rows */
    const void *columns;        /* D per column (Re dc), for a whole image without rotation */
    const void *rows;           /* D per row (Im dc) */
    long long width;
    FKPixelOut *out;            /* per item of this launch: out[item - first] */
    long long count;
    long long first;
    long long maxIterations;
    int power;
    int addsDC;
    int mode;                   /* FK_REBASE or FK_DETECT */
    int variance;               /* 1: errorScale is the error variance (ErrorVariance), else the product of |f'(z)|^2 */
    double tolerance;           /* Pauldelbrot's g */
    double epsilon;             /* the table's epsilon (0 without one): the variance's truncation terms */
    double binomials[FK_MAX_POWER + 1];
    FKStream stream;            /* stream.keys != 0: the orbit (its own rebase orbit) streamed */
} FKPerturbParams;

/* Direct Double escape time (shallow views) of one pixel: its counts, |z|^2 at nBig, and for
 * z^2 + c the rounding check's error variance e2 * 2^exponent (QuadraticLanes.swift). */
typedef struct {
    unsigned int n2;
    unsigned int nBig;
    double r2;
    double e2;
    long long exponent;
} FKDirectOut;

/* Direct Double escape time: z <- z^p + c over a grid without rotation. */
typedef struct {
    const double *columns;      /* Re per column */
    const double *rows;         /* Im per row */
    FKDirectOut *out;           /* per pixel of this launch: out[i - first] */
    long long width;
    long long count;
    long long first;
    long long maxIterations;
    int power;
    int julia;
    double juliaRe, juliaIm;
} FKDirectParams;

/* The reference orbit on the device (FathomOrbit.h, fathom_orbit_steps). A number's sign, zero
 * flag and exponent (its value 0.limbs 2^exponent); its limbs are apart, in `limbs`. */
typedef struct { int negative; int zero; long long exponent; } FKOrbitHead;

/* Device addresses and sizes of one orbit, L = ceil(precision / 32), N = 2^nttLog:
 * limbs: 7 numbers of L limbs (x, y, cx, cy, t1, t2, t3), heads: their 7 FKOrbitHead;
 * scratch: two blocks' three buffers of 4L + 8 limbs each; transforms: four arrays of N
 * words (x, y, t1, t2's digits, then the products in the first and third); twiddles: w^j then
 * w^-j, j < N/2; out: FK_ORBIT_STEP_WORDS Doubles a step; control: FK_ORBIT_CONTROL_WORDS words (FK_ORBIT_*). */
typedef struct {
    unsigned long long limbs, heads, scratch, transforms, twiddles, out, control;
    unsigned long long inverseN;
    long long precision, count;
    int limbCount, nttLog;
    /* 1: tiny values and the escape test near |Z| = 2 on the device; 0: such steps flagged for
     * the host (the form checked on an H200 so far). */
    int settle, unused;
} FKOrbitParams;

/* control's words: the grid barrier's arrivals (its top bit flips as the last block arrives;
 * word 1 unused); each block's result for its number (1: stored, 0: the host must look); the
 * steps taken and whether the last is flagged. */
#define FK_ORBIT_ARRIVED 0
#define FK_ORBIT_STORED_Y 2
#define FK_ORBIT_STORED_X 3
#define FK_ORBIT_TAKEN 4
#define FK_ORBIT_FLAGGED 5
/* From word 16: five 64-bit sums of nanoseconds, the phases A, B (digits and long stages),
 * B's tiles, C and D, added by each launch (block 0's clock). */
#define FK_ORBIT_PROFILE 16
/* From word 32: eight 64-bit running sums of nanoseconds in parts of the phases (FathomOrbit.h's
 * detailSums: blockAdd's alignment, carries, normalisation, rounding; D's product, add, stored
 * Doubles; A's add), as the device holds them (they start at 0 when the module loads). */
#define FK_ORBIT_DETAIL 32
#define FK_ORBIT_CONTROL_WORDS 48
/* Doubles a step in `out`: x, y, x low, y low, x's and y's significand and exponent, the
 * escape gap's significand and exponent, the escape test (0 none, 1 gap, 2 escaped), unused. */
#define FK_ORBIT_STEP_WORDS 12

#endif
