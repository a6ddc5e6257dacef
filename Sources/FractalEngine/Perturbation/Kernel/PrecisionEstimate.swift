import FractalNumerics

/// How far a perturbation result's smooth value can be trusted.
///
/// With `ErrorVariance` (the default) the kernels pass the error's variance and `n` = 1;
/// with `ProductStretch` (`--estimate product`), the model below.
///
/// Each step rounds dz to the delta type's precision u, an error equivalent to moving the
/// pixel by about u |dc|; over n steps (adding up like a random walk, times 4 for safety) and
/// stretched by |dz(n)/dc|, it moves ln|z(n)| and so the smooth value by
/// 4 sqrt(n) u |dc| |dz/dc| / (|z| ln|z| ln p). Pixels where that may exceed 1e-7 are
/// iterated again directly in MPFR (Documentation/Perturbation.md).
@usableFromInline package enum PrecisionEstimate {
    /// log2(1e-7).
    @usableFromInline package static let log2Tolerance = -23.253496664211536
    /// log2 of the safety factor on the estimate.
    @usableFromInline package static let safetyLog2 = 1.0
    /// An extra factor on the BLA truncation term.
    @usableFromInline package static let blaSafety = 2.0

    @inlinable
    package static func smoothHolds<D: DeltaScalar>(
        n: Int, lengthSquared r2: Double, power: Int, dc: Complex<D>,
        errorScale: Double, errorScaleExponent: Int, deltaBits: Int, referenceBits: Int = .max,
        blaLoad: Double = 0, blaEpsilon: Double = 0
    ) -> Bool {
        let log2dc =
            (dc.re.floatExpValue * dc.re.floatExpValue + dc.im.floatExpValue * dc.im.floatExpValue).log2Magnitude / 2
        let lnAbsZ = 0.5 * Math.log(r2)
        // Rounding (sqrt(n) u) plus BLA truncation (2 eps |dz| / radius per BLA step, as a
        // share of dc (`PixelRun.blaLoad`), added like the rounding errors), the BLA term
        // doubled: measured against BLA at 2^-53, the flake views need it to flag every pixel
        // off by more than 1e-7 (Documentation/Perturbation.md). The reference orbit's own
        // rounding, 2^-bits of |Z| <= 2 a step, moves every pixel alike by about 2^(1 - bits):
        // as a share of dc it is 2^(1 - bits) / |dc|, which past 106-bit deltas can be the
        // larger (a pixel near a deep minibrot of find's, 1e-103: smooth off by 0.065 with the
        // orbit at 64 bits below the spacing; Documentation/Perturbation.md).
        let referenceShare = referenceBits == .max ? 0 : Math.pow(2, Double(1 - referenceBits) - log2dc)
        let unit =
            Double(n).squareRoot() * (Math.pow(2, -Double(deltaBits)) + referenceShare)
            + blaSafety * 2 * blaEpsilon * blaLoad.squareRoot()
        let log2Error =
            safetyLog2 + Math.log2(unit) + log2dc
            + 0.5 * (Math.log2(errorScale) + Double(errorScaleExponent))
            - (lnAbsZ / 0.6931471805599453 + Math.log2(lnAbsZ * Math.log(Double(power))))
        return log2Error <= log2Tolerance
    }

    /// The lanes' rounding check (`RoundingCheck`): whether a Double pixel's smooth value holds
    /// to 1e-7, from |z|^2 where it ended (escaped, or 4) and the error variance e2 * 2^exponent,
    /// u sqrt(e2) being the error of z. The GPU's direct pass finishes its pixels with it too.
    @inlinable
    static func roundingCheckHolds(lengthSquared r2: Double, e2: Double, exponent: Int) -> Bool {
        smoothHolds(
            n: 1, lengthSquared: r2, power: 2, dc: Complex(1.0, 0), errorScale: e2, errorScaleExponent: exponent,
            deltaBits: 53)
    }
}
