import ArbitraryPrecision
import FractalNumerics

/// Pixel deltas from the reference point C: dc = pixel point - C. Without rotation each
/// column's real part and each row's imaginary part are computed once, exactly in MPFR from
/// the contract's pixel point (the oracle's rounding order), then rounded to D: the pixel
/// grid is as exact as D can hold it, relative to |dc|.
@usableFromInline
struct DeltaGrid<D: PerturbationDelta>: Sendable {
    @usableFromInline let width: Int
    @usableFromInline let columns: [D]
    @usableFromInline let rows: [D]
    @usableFromInline let rotated: Bool
    @usableFromInline let viewport: Viewport
    @usableFromInline let spacing: D
    @usableFromInline let offset: Complex<D>

    init(viewport: Viewport, reference: BigComplex) {
        self.viewport = viewport
        width = viewport.width
        spacing = D(rounding: viewport.spacing)
        offset = Complex(D(rounding: viewport.center.re - reference.re), D(rounding: viewport.center.im - reference.im))
        rotated = !viewport.isSeparable
        if rotated {
            columns = []
            rows = []
        } else {
            columns = (0..<viewport.width).map { x in D(rounding: viewport.exactPoint(x: x, y: 0).re - reference.re) }
            rows = (0..<viewport.height).map { y in D(rounding: viewport.exactPoint(x: 0, y: y).im - reference.im) }
        }
    }

    /// An upper bound of |dc| over `subset` (nil: the whole image, whose extremes are its
    /// corners, or on an exponential map's rows the outermost row), with a margin for rounding.
    func maxMagnitude(over subset: [Int]?, height: Int) -> D {
        let whole =
            viewport.projection == .flat ? [0, width - 1, (height - 1) * width, height * width - 1] : Array(0..<width)
        let pixels = subset ?? whole
        var best = D.zero
        for i in pixels {
            let d = delta(i)
            let r = D.complexMagnitude(d.re, d.im)
            if best < r { best = r }
        }
        return best.scaled(by: 1 + 0x1p-20)
    }

    @inlinable @inline(__always)
    func delta(_ i: Int) -> Complex<D> {
        let y = i / width, x = i - y * width
        if !rotated { return Complex(columns[x], rows[y]) }
        let (u, v) = viewport.offsetUnits(x: x, y: y)
        let (ru, rv) = viewport.rotated(u, v)
        return Complex(spacing.scaled(by: ru) + offset.re, spacing.scaled(by: rv) + offset.im)
    }
}

extension DeltaGrid {
    /// The dc of `count` items (the subset's pixels, or pixels 0 ..< count), on all cores.
    func deltas(of subset: [Int]?, count: Int) -> [Complex<D>] {
        [Complex<D>](unsafeUninitializedCapacity: count) { d, initialized in
            let out = SendablePointer(d.baseAddress!)
            Parallel.forEachChunk(count, threads: Parallel.cores) { range in
                for j in range { (out.pointer + j).initialize(to: delta(subset?[j] ?? j)) }
            }
            initialized = count
        }
    }
}
