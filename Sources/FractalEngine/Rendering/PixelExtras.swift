import FractalNumerics

// Per-pixel data beyond the escape counts (Documentation/Coloring.md): the distance estimate
// and the slope direction from the derivative dz/dc tracked along the orbit (through
// perturbation and BLA steps), and the orbit's closest approach to a trap.

/// An orbit trap: a shape in the z plane; a pixel records the orbit's least distance to it.
public enum OrbitTrap: Sendable, Equatable, Codable {
    /// The distance |z - p|.
    case point(re: Double, im: Double)
    /// The distance to the nearer of the two lines through p parallel to the axes.
    case cross(re: Double, im: Double)

    /// The distance from z = (`x`, `y`) to the trap.
    @inlinable @inline(__always)
    public func distance(_ x: Double, _ y: Double) -> Double {
        switch self {
        case .point(let re, let im):
            let dx = x - re, dy = y - im
            return (dx * dx + dy * dy).squareRoot()
        case .cross(let re, let im):
            return Swift.min(Swift.abs(x - re), Swift.abs(y - im))
        }
    }
}

/// What extra data a render computes.
public struct ExtrasRequest: Sendable, Equatable {
    /// Track dz/dc: distance estimate and slope direction.
    public var derivative = false
    /// Record the least distance of each orbit to this trap (BLA steps are off then: they
    /// skip the iterations a trap must see).
    public var trap: OrbitTrap?

    /// A request for the derivative data, a trap, both or (the defaults) neither.
    public init(derivative: Bool = false, trap: OrbitTrap? = nil) {
        self.derivative = derivative
        self.trap = trap
    }

    /// Whether nothing extra is requested.
    public var isEmpty: Bool { !derivative && trap == nil }
}

/// The extra data of a render, one entry a pixel (row-major); arrays not requested are empty.
public struct ExtrasField: Sendable, Equatable {
    /// The distance estimate |z| ln|z| / |dz/dc| at escape, in pixel spacings (NaN: no escape).
    public var distance: [Float]
    /// The unit vector z / (dz/dc) at escape (the direction the potential rises, for slope
    /// lighting; NaN: no escape).
    public var slopeRe: [Float]
    /// The imaginary part of that unit vector (`slopeRe` holds the real part; NaN: no escape).
    public var slopeIm: [Float]
    /// The orbit's least distance to the trap (over every iteration, escaped or not).
    public var trap: [Float]

    /// Arrays for `count` pixels of what `request` asks for, the distance and slope filled with
    /// NaN and the trap with infinity; the others empty.
    public init(count: Int, request: ExtrasRequest) {
        distance = request.derivative ? Array(repeating: .nan, count: count) : []
        slopeRe = request.derivative ? Array(repeating: .nan, count: count) : []
        slopeIm = request.derivative ? Array(repeating: .nan, count: count) : []
        trap = request.trap != nil ? Array(repeating: .infinity, count: count) : []
    }
}

/// One pixel's extras.
@usableFromInline
struct PixelExtras {
    @usableFromInline var distance = Float.nan
    @usableFromInline var slopeRe = Float.nan
    @usableFromInline var slopeIm = Float.nan
    @usableFromInline var trap = Float.infinity
    @inlinable init() {}
}

/// Writes extras into an `ExtrasField`'s arrays from the rendering threads (disjoint pixels).
///
/// Unchecked Sendable: raw pointers into arrays that the field keeps pinned while the writer
/// lives (`withWriter`); each thread writes only its own pixels' entries.
@usableFromInline
struct ExtrasWriter: @unchecked Sendable {
    @usableFromInline let distance: UnsafeMutablePointer<Float>?
    @usableFromInline let slopeRe: UnsafeMutablePointer<Float>?
    @usableFromInline let slopeIm: UnsafeMutablePointer<Float>?
    @usableFromInline let trap: UnsafeMutablePointer<Float>?

    @inlinable @inline(__always)
    func write(_ i: Int, _ e: PixelExtras) {
        distance?[i] = e.distance
        slopeRe?[i] = e.slopeRe
        slopeIm?[i] = e.slopeIm
        trap?[i] = e.trap
    }
}

extension ExtrasField {
    /// Calls `body` with a writer into these arrays.
    mutating func withWriter<R>(_ body: (ExtrasWriter) throws -> R) rethrows -> R {
        try distance.withUnsafeMutableBufferPointer { d in
            try slopeRe.withUnsafeMutableBufferPointer { sr in
                try slopeIm.withUnsafeMutableBufferPointer { si in
                    try trap.withUnsafeMutableBufferPointer { t in
                        // An empty array's buffer may still have an address (the shared empty
                        // storage): arrays not requested get no pointer.
                        try body(
                            ExtrasWriter(
                                distance: d.isEmpty ? nil : d.baseAddress, slopeRe: sr.isEmpty ? nil : sr.baseAddress,
                                slopeIm: si.isEmpty ? nil : si.baseAddress, trap: t.isEmpty ? nil : t.baseAddress))
                    }
                }
            }
        }
    }
}

/// dz/dc = w 2^k: w a complex Double kept near 1 in magnitude, so the derivative has the
/// range of FloatExp (|dz/dc| reaches 1 / spacing and beyond) at the cost of Doubles.
@usableFromInline
struct ScaledDerivative: Sendable {
    @usableFromInline var re: Double
    @usableFromInline var im: Double
    @usableFromInline var k: Int

    @inlinable init(re: Double, im: Double) {
        self.re = re
        self.im = im
        k = 0
    }

    /// w <- f'(z) w + (addsOne ? 2^-k : 0), f'(z) = p z^(p-1) at z = (x, y).
    @inlinable @inline(__always)
    mutating func step(x: Double, y: Double, power: Int, addsOne: Bool) {
        var ar = x, ai = y
        for _ in 2..<Swift.max(2, power) {
            (ar, ai) = (ar * x - ai * y, ar * y + ai * x)
        }
        let p = Double(power)
        ar *= p
        ai *= p
        (re, im) = (ar * re - ai * im, ar * im + ai * re)
        if addsOne { re += FloatExp.powerOfTwo(-k) }
        normalize()
    }

    /// w <- A w + B 2^-k (a BLA step: dz/dc maps as dz does, dc contributing B).
    @inlinable @inline(__always)
    mutating func apply(a: Complex<FloatExp>, b: Complex<FloatExp>) {
        let wr = FloatExp(re), wi = FloatExp(im)
        let scale = FloatExp(normalizing: 1, -k)
        let nr = a.re * wr - a.im * wi + b.re * scale
        let ni = a.re * wi + a.im * wr + b.im * scale
        // Back to w 2^k with |w| near 1.
        let e = Swift.max(nr.isZero ? Int.min / 2 : nr.exponent, ni.isZero ? Int.min / 2 : ni.exponent)
        guard e > Int.min / 2 else {
            re = 0
            im = 0
            return
        }
        re = (nr * FloatExp(normalizing: 1, -e)).doubleValue
        im = (ni * FloatExp(normalizing: 1, -e)).doubleValue
        k += e
    }

    @inlinable @inline(__always)
    mutating func normalize() {
        let m = Swift.max(Swift.abs(re), Swift.abs(im))
        if m > 0x1p256 {
            re *= 0x1p-256
            im *= 0x1p-256
            k += 256
        } else if m < 0x1p-256 && m > 0 {
            re *= 0x1p256
            im *= 0x1p256
            k -= 256
        }
    }

    /// The distance estimate |z| ln|z| / |dz/dc| in pixel spacings, and the unit vector
    /// z / (dz/dc), at the escaped z = (x, y).
    @inlinable
    func estimate(x: Double, y: Double, log2Spacing: Double) -> PixelExtras {
        var e = PixelExtras()
        let w2 = re * re + im * im
        guard w2 > 0 else { return e }
        let r2 = x * x + y * y
        let lnAbsZ = 0.5 * Math.log(r2)
        let log2Distance = 0.5 * Math.log2(r2) + Math.log2(lnAbsZ) - 0.5 * Math.log2(w2) - Double(k) - log2Spacing
        e.distance = Float(Math.pow(2, Swift.min(120, Swift.max(-140, log2Distance))))
        // z / w = z conj(w) / |w|^2: its direction.
        let ur = x * re + y * im, ui = y * re - x * im
        let u = (ur * ur + ui * ui).squareRoot()
        if u > 0 {
            e.slopeRe = Float(ur / u)
            e.slopeIm = Float(ui / u)
        }
        return e
    }
}

/// What a perturbation kernel tracks along each pixel's orbit besides z: nothing
/// (`NoTracking`, compiled away) or the extras (`ExtrasTracking`). A tracker sees z(0) at
/// its start and every z after a step (`observe`), and keeps the current one for the next
/// step's derivative and for the end.
@usableFromInline
protocol PixelTracker: Sendable {
    init(julia: Bool, trap: OrbitTrap?, x: Double, y: Double)
    /// A plain step from the current z.
    mutating func plain(power: Int)
    /// A BLA step with coefficients A and B.
    mutating func bla(a: Complex<FloatExp>, b: Complex<FloatExp>)
    /// The pixel's z after a step.
    mutating func observe(x: Double, y: Double)
    /// The extras when the pixel ends (at the last observed z), escaped or not.
    func finish(escaped: Bool, log2Spacing: Double) -> PixelExtras
    static var tracksBLA: Bool { get }
    static var isActive: Bool { get }
}

@usableFromInline
struct NoTracking: PixelTracker {
    @inlinable init(julia: Bool, trap: OrbitTrap?, x: Double, y: Double) {}
    @inlinable @inline(__always) mutating func plain(power: Int) {}
    @inlinable @inline(__always) mutating func bla(a: Complex<FloatExp>, b: Complex<FloatExp>) {}
    @inlinable @inline(__always) mutating func observe(x: Double, y: Double) {}
    @inlinable @inline(__always) func finish(escaped: Bool, log2Spacing: Double) -> PixelExtras { PixelExtras() }
    @inlinable static var tracksBLA: Bool { false }
    @inlinable static var isActive: Bool { false }
}

/// The derivative (Mandelbrot: dz/dc from 0; Julia: dz/dz0 from 1) and the trap distance.
@usableFromInline
struct ExtrasTracking: PixelTracker {
    @usableFromInline var derivative: ScaledDerivative
    @usableFromInline let addsOne: Bool
    @usableFromInline let trap: OrbitTrap?
    @usableFromInline var nearest = Double.infinity
    /// The current z.
    @usableFromInline var x: Double
    @usableFromInline var y: Double

    @inlinable init(julia: Bool, trap: OrbitTrap?, x: Double, y: Double) {
        derivative = ScaledDerivative(re: julia ? 1 : 0, im: 0)
        addsOne = !julia
        self.trap = trap
        self.x = x
        self.y = y
    }

    @inlinable @inline(__always)
    mutating func plain(power: Int) { derivative.step(x: x, y: y, power: power, addsOne: addsOne) }

    @inlinable @inline(__always)
    mutating func bla(a: Complex<FloatExp>, b: Complex<FloatExp>) { derivative.apply(a: a, b: b) }

    @inlinable @inline(__always)
    mutating func observe(x: Double, y: Double) {
        self.x = x
        self.y = y
        if let trap { nearest = Swift.min(nearest, trap.distance(x, y)) }
    }

    @inlinable
    func finish(escaped: Bool, log2Spacing: Double) -> PixelExtras {
        var e = escaped ? derivative.estimate(x: x, y: y, log2Spacing: log2Spacing) : PixelExtras()
        e.trap = Float(nearest)
        return e
    }

    @inlinable static var tracksBLA: Bool { true }
    @inlinable static var isActive: Bool { true }
}

/// The extras of shallow views (Double and double-double paths): each pixel iterated again
/// in T with the tracker (the escape counts come from the normal kernels).
@usableFromInline
struct ScalarExtrasKernel<F: EscapeTimeFormula, T: DirectScalar>: TileKernel {
    @usableFromInline let formula: F
    @usableFromInline let grid: PixelGrid
    @usableFromInline let juliaC: Complex<T>?
    @usableFromInline let maxIterations: Int
    @usableFromInline let trap: OrbitTrap?
    @usableFromInline let log2Spacing: Double
    @usableFromInline let writer: ExtrasWriter

    /// Writes extras only (the field's counts are the normal kernels').
    @inlinable
    func run(_ range: Range<Int>, _: FieldWriter) {
        for i in range {
            let p = Complex<T>(rounding: grid.point(i))
            var z = juliaC == nil ? Complex<T>.zero : p
            let c = juliaC ?? p
            var tracker = ExtrasTracking(julia: juliaC != nil, trap: trap, x: z.re.leadingDouble, y: z.im.leadingDouble)
            var n = 0
            var escaped = false
            while n < maxIterations && !escaped {
                tracker.plain(power: formula.power)
                z = formula.step(z, c)
                n += 1
                let x = z.re.leadingDouble, y = z.im.leadingDouble
                tracker.observe(x: x, y: y)
                escaped = x * x + y * y > Escape.radiusSquaredBig
            }
            writer.write(i, tracker.finish(escaped: escaped, log2Spacing: log2Spacing))
        }
    }
}
