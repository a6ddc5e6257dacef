import FractalNumerics

/// Turns a range of pixel indices (row-major) into results. Each kernel is a concrete generic
/// type, so the scheduler specialises it: no existential or closure context in the loop.
@usableFromInline
protocol TileKernel: Sendable {
    func run(_ range: Range<Int>, _ writer: FieldWriter)
}

/// Pixel coordinates in the type a kernel iterates in.
@usableFromInline
struct PixelGrid: Sendable {
    @usableFromInline let viewport: Viewport

    @inlinable @inline(__always)
    func point(_ i: Int) -> Complex<DoubleDouble> {
        viewport.point(x: i % viewport.width, y: i / viewport.width)
    }
}

/// Number types a direct kernel can run in, converted from double-double pixel coordinates.
public protocol DirectScalar: RealScalar {
    init(rounding value: DoubleDouble)
}

extension Double: DirectScalar {
    @inlinable public init(rounding value: DoubleDouble) { self = value.doubleValue }
}

extension DoubleDouble: DirectScalar {
    @inlinable public init(rounding value: DoubleDouble) { self = value }
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

/// z^2 + c in Double, vectorised (see QuadraticLanes).
@usableFromInline
struct QuadraticDoubleKernel: TileKernel {
    @usableFromInline let grid: PixelGrid
    @usableFromInline let juliaC: Complex<Double>?
    @usableFromInline let maxIterations: Int

    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        if let juliaC {
            QuadraticLanes<SIMD8<Double>>.run(range: range, maxIterations: maxIterations, writer: writer) {
                (Complex<Double>(rounding: grid.point($0)), juliaC)
            }
        } else {
            QuadraticLanes<SIMD8<Double>>.run(range: range, maxIterations: maxIterations, writer: writer) {
                (.zero, Complex<Double>(rounding: grid.point($0)))
            }
        }
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
