/// How the kernels judge a pixel's precision, chosen per pass at the top (a type, not a flag:
/// as a stored flag its branches made every kernel 1.7 times slower).
@usableFromInline
protocol StretchBound: SendableMetatype {
    /// True: track the error variance forward (`ErrorVariance`); false: the product of
    /// |f'(z)| (`ProductStretch`).
    static var variance: Bool { get }
}

/// errorScale 2^errorScaleExponent = |dz/dc|^2 as the product of |f'(z)|^2 (|A|^2 a BLA step, |zc|^2 an
/// LA entry), and the estimate sqrt(n) u |dc| |dz/dc| plus the BLA load (`PrecisionEstimate`).
@usableFromInline
enum ProductStretch: StretchBound {
    @inlinable static var variance: Bool { false }
}

/// errorScale 2^errorScaleExponent = V, the variance of z's error in units of (u |dc|)^2 (u the
/// delta type's unit roundoff), tracked forward: each step multiplies it by |f'(z)|^2 (|A|^2,
/// |zc|^2) and adds its own rounding and truncation, squared (`PixelRun.stepRounding`,
/// `linearRounding`), so the estimate is u |dc| sqrt(V) with no assumption on how dz depends
/// on dc. The CPU's default (`EstimateMethod.variance`), and every pass against a wrapped
/// nucleus reference: where a pixel's dz is reset to z (every rebase, every wrap) the product
/// of |f'(z)| misses errors (tlaloc 1e-213: pixels 0.064 off unflagged; a fs_deepmini_e433
/// pixel 7e-3 off under-rated by 2^1300), and a bound on |dz/dc| with its additive terms
/// flagged 30% of deepmini (Documentation/Perturbation.md). |f'(z)|^2 carries its own exponent
/// where |z|^2 underflows.
@usableFromInline
enum ErrorVariance: StretchBound {
    @inlinable static var variance: Bool { true }
}
