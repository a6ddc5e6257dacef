/// Per-pixel side output of a perturbation pass: in detect mode the glitch flag and the ratio
/// |z|^2 / |Z|^2 at detection; with the precision check, whether the pixel's smooth value may
/// be off by more than 1e-7 (`PrecisionEstimate`).
///
/// Unchecked Sendable: raw pointers into arrays the pass owns and keeps alive until its
/// threads have returned; each thread writes only its own pixels' entries.
@usableFromInline
struct PixelFlags: @unchecked Sendable {
    @usableFromInline let glitched: UnsafeMutablePointer<UInt8>?
    @usableFromInline let ratio: UnsafeMutablePointer<Double>?
    @usableFromInline let atRisk: UnsafeMutablePointer<UInt8>?
    /// Per pixel: loop steps taken (BLA and plain), and of those, BLA steps.
    @usableFromInline let steps: UnsafeMutablePointer<UInt32>?
    @usableFromInline let approximationSteps: UnsafeMutablePointer<UInt32>?
    /// Per pixel: 1 where the pixel was proven interior (`InteriorTest`).
    @usableFromInline let interior: UnsafeMutablePointer<UInt8>?
    /// Where a tracking kernel writes the pixel's extras.
    @usableFromInline let extras: ExtrasWriter?

    @usableFromInline init(
        glitched: UnsafeMutablePointer<UInt8>?, ratio: UnsafeMutablePointer<Double>?,
        atRisk: UnsafeMutablePointer<UInt8>?,
        steps: UnsafeMutablePointer<UInt32>? = nil, approximationSteps: UnsafeMutablePointer<UInt32>? = nil,
        interior: UnsafeMutablePointer<UInt8>? = nil, extras: ExtrasWriter? = nil
    ) {
        self.interior = interior
        self.glitched = glitched
        self.ratio = ratio
        self.atRisk = atRisk
        self.steps = steps
        self.approximationSteps = approximationSteps
        self.extras = extras
    }

    /// These flags with the loop steps counted into `steps`.
    func counting(steps: UnsafeMutablePointer<UInt32>) -> PixelFlags {
        PixelFlags(
            glitched: glitched, ratio: ratio, atRisk: atRisk, steps: steps, approximationSteps: approximationSteps,
            interior: interior, extras: extras)
    }

    /// Pixel i: glitched at `ratio` (NaN: it did not), and whether it is at risk.
    @inlinable @inline(__always)
    func record(_ i: Int, ratio r: Double, atRisk s: Bool, work: PixelWork) {
        glitched?[i] = r.isNaN ? 0 : 1
        ratio?[i] = r
        atRisk?[i] = s ? 1 : 0
        steps?[i] &+= UInt32(truncatingIfNeeded: work.steps)
        approximationSteps?[i] &+= UInt32(truncatingIfNeeded: work.approximationSteps)
        if work.provenInterior { interior?[i] = 1 }
    }
}

/// The work one pixel took: loop steps (each a BLA step or a plain perturbation step).
@usableFromInline
struct PixelWork {
    @usableFromInline var steps = 0
    @usableFromInline var approximationSteps = 0
    @usableFromInline var provenInterior = false
    @inlinable init() {}
}
