import FractalNumerics

/// Turns a range of pixel indices (row-major) into results. Each kernel is a concrete generic
/// type, so the scheduler specialises it: no existential or closure context in the loop.
@usableFromInline
protocol TileKernel: Sendable {
    func run(_ range: Range<Int>, _ writer: FieldWriter)
}

/// Pixel coordinates in double-double. Without rotation a pixel's real part depends on its
/// column only and its imaginary part on its row only, so both are computed once per render.
@usableFromInline
struct PixelGrid: Sendable {
    @usableFromInline let viewport: Viewport
    @usableFromInline let columnRe: [DoubleDouble]
    @usableFromInline let rowIm: [DoubleDouble]
    @usableFromInline let rotated: Bool

    init(viewport: Viewport) {
        self.viewport = viewport
        rotated = !viewport.isSeparable
        columnRe = rotated ? [] : (0..<viewport.width).map { viewport.point(x: $0, y: 0).re }
        rowIm = rotated ? [] : (0..<viewport.height).map { viewport.point(x: 0, y: $0).im }
    }

    @inlinable @inline(__always)
    func point(_ i: Int) -> Complex<DoubleDouble> {
        let y = i / viewport.width, x = i - y * viewport.width
        if rotated { return viewport.point(x: x, y: y) }
        return Complex(columnRe[x], rowIm[y])
    }
}

/// Number types a direct kernel can run in, converted from double-double pixel coordinates.
@usableFromInline package protocol DirectScalar: RealScalar {
    /// `value` converted to this type, rounded to its precision.
    init(rounding value: DoubleDouble)
}

extension Double: DirectScalar {
    /// The double-double rounded to a Double (hi + lo).
    @inlinable package init(rounding value: DoubleDouble) { self = value.doubleValue }
}

extension DoubleDouble: DirectScalar {
    /// The double-double itself, unchanged.
    @inlinable package init(rounding value: DoubleDouble) { self = value }
}

extension Complex where T: DirectScalar {
    @inlinable init(rounding z: Complex<DoubleDouble>) { self.init(T(rounding: z.re), T(rounding: z.im)) }
}

/// Scalar escape time: Mandelbrot-like (z0 = 0, c = pixel) or Julia-like (z0 = pixel).
@usableFromInline
struct ScalarEscapeKernel<F: EscapeTimeFormula, T: DirectScalar>: TileKernel {
    @usableFromInline let formula: F
    @usableFromInline let grid: PixelGrid
    @usableFromInline let juliaC: Complex<T>?
    @usableFromInline let maxIterations: Int

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        for i in range {
            let p = Complex<T>(rounding: grid.point(i))
            let result: PixelResult
            if let juliaC {
                result = iterateEscape(formula, from: EscapeState(z: p), c: juliaC, maxIterations: maxIterations)
            } else {
                result = iterateEscape(formula, from: EscapeState(z: .zero), c: p, maxIterations: maxIterations)
            }
            writer.write(i, result)
        }
    }
}

/// z^2 + c vectorised over lanes of `L` (Double or double-double; see QuadraticLanes).
@usableFromInline
struct QuadraticLaneKernel<L: QuadraticLaneVector>: TileKernel {
    @usableFromInline let grid: PixelGrid
    @usableFromInline let juliaC: Complex<L.Scalar>?
    @usableFromInline let maxIterations: Int
    /// When set, tile ranges index this list of pixels.
    @usableFromInline var subset: [Int]?

    @inlinable
    init(grid: PixelGrid, juliaC: Complex<L.Scalar>?, maxIterations: Int, subset: [Int]? = nil) {
        self.grid = grid
        self.juliaC = juliaC
        self.maxIterations = maxIterations
        self.subset = subset
    }

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        var none = NoLaneCheck<L>()
        run(range, writer, check: &none)
    }

    @inlinable
    func run<C: LaneCheck>(_ range: Range<Int>, _ writer: FieldWriter, check: inout C) where C.Lanes == L {
        let pixelIndex: (Int) -> Int = { [subset] j in subset?[j] ?? j }
        if let juliaC {
            QuadraticLanes<L>.run(
                range: range, maxIterations: maxIterations, writer: writer, check: &check, pixelIndex: pixelIndex
            ) {
                (Complex<L.Scalar>(rounding: grid.point($0)), juliaC)
            }
        } else {
            QuadraticLanes<L>.run(
                range: range, maxIterations: maxIterations, writer: writer, skipKnownInterior: true,
                check: &check, pixelIndex: pixelIndex
            ) {
                (.zero, Complex<L.Scalar>(rounding: grid.point($0)))
            }
        }
    }
}

/// Double lanes with the rounding check (`RoundingCheck`): pixels whose result Double may not
/// carry are marked in `atRisk` (one byte per pixel) for a double-double pass.
@usableFromInline
struct CheckedDoubleLaneKernel<V: SIMD>: TileKernel where V.Scalar == Double {
    @usableFromInline let lanes: QuadraticLaneKernel<DoubleLanes<V>>
    @usableFromInline let atRisk: SendablePointer<UInt8>

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        var check = RoundingCheck<V>(atRisk: atRisk.pointer)
        lanes.run(range, writer, check: &check)
    }
}

/// Newton's method from each pixel.
@usableFromInline
struct NewtonKernel<T: DirectScalar>: TileKernel {
    @usableFromInline let newton: NewtonIteration<T>
    @usableFromInline let grid: PixelGrid
    @usableFromInline let maxIterations: Int

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        for i in range {
            writer.write(i, newton.iterate(from: Complex<T>(rounding: grid.point(i)), maxIterations: maxIterations))
        }
    }
}

/// Runs another kernel on a list of pixels: item j of a tile is pixel subset[j].
@usableFromInline
struct SubsetKernel<K: TileKernel>: TileKernel {
    @usableFromInline let inner: K
    @usableFromInline let subset: [Int]

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        for j in range { inner.run(subset[j]..<subset[j] + 1, writer) }
    }
}
