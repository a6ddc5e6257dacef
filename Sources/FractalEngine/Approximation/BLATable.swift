import FractalNumerics

// Bilinear approximation (BLA) of perturbation steps (Zhuoran; Fraktaler-3's README;
// mathr.co.uk deep-zoom notes; DESIGN.md section 6). Work in progress for issue 4: the table
// is built and tested against plain perturbation steps, not yet used by the kernels.
//
// A step of length l from reference index m maps dz(n) to dz(n + l) = A dz(n) + B dc, valid
// while |dz(n)| < radius. Mandelbrot single step at m: A = 2 Z(m), B = 1,
// radius = max(0, eps |A| - |B| |dc|max / |A|). Merging x then y:
// A = Ay Ax, B = Ay Bx + By, radius = max(0, min(Rx, (Ry - |Bx| |dc|max) / |Ax|)).

/// One bilinear step.
public struct BLAStep: Sendable, Equatable {
    public var a: Complex<Double>
    public var b: Complex<Double>
    public var radius: Double
    public var length: Int

    /// dz after the step.
    @inlinable @inline(__always)
    public func apply(_ dz: Complex<Double>, _ dc: Complex<Double>) -> Complex<Double> { a * dz + b * dc }

    /// `self` followed by `next`.
    public func then(_ next: BLAStep, dcMax: Double) -> BLAStep {
        let ax = a.magnitude, bx = b.magnitude
        let radius = Swift.max(0, Swift.min(self.radius, (next.radius - bx * dcMax) / ax))
        return BLAStep(a: next.a * a, b: next.a * b + next.b, radius: radius.isFinite ? radius : 0, length: length + next.length)
    }
}

/// BLA steps for a Mandelbrot reference orbit: level k holds steps of length 2^k, entry i
/// of level k starting at reference index 1 + i 2^k (index 0 always takes a real step).
public struct BLATable: Sendable {
    public let levels: [[BLAStep]]
    public let epsilon: Double
    public let dcMax: Double

    /// `orbit` = Z(0) ... Z(M); `dcMax` bounds |dc| over the image; `epsilon` = 2^-24 for
    /// Double deltas by default (Fraktaler-3's choice).
    public init(orbit: [Complex<Double>], dcMax: Double, epsilon: Double = 0x1p-24) {
        self.epsilon = epsilon
        self.dcMax = dcMax
        var level: [BLAStep] = []
        if orbit.count > 2 {
            for m in 1..<(orbit.count - 1) {
                let a = Complex(orbit[m].re * 2, orbit[m].im * 2)
                let am = a.magnitude
                let radius = am > 0 ? Swift.max(0, epsilon * am - dcMax / am) : 0
                level.append(BLAStep(a: a, b: Complex(1, 0), radius: radius, length: 1))
            }
        }
        var levels = [level]
        while level.count > 1 {
            var next: [BLAStep] = []
            next.reserveCapacity(level.count / 2)
            var i = 0
            while i + 1 < level.count {
                next.append(level[i].then(level[i + 1], dcMax: dcMax))
                i += 2
            }
            levels.append(next)
            level = next
        }
        self.levels = levels
    }

    /// The longest step starting at reference index m (m >= 1) whose radius exceeds |dz|, if any.
    public func longestStep(at m: Int, dzMagnitude: Double) -> BLAStep? {
        guard m >= 1 else { return nil }
        var k = levels.count - 1
        while k >= 0 {
            let length = 1 << k
            if (m - 1) % length == 0 {
                let i = (m - 1) / length
                if i < levels[k].count, levels[k][i].radius > dzMagnitude { return levels[k][i] }
            }
            k -= 1
        }
        return nil
    }
}
