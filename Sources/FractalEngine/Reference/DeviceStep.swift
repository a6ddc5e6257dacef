import ArbitraryPrecision
internal import CMPFR
import Foundation
import FractalNumerics

/// A number as a device's reference step holds it (CFathomGPU's FathomOrbit.h): the value is
/// 0.limbs 2^exponent, `limbs` 32-bit and little-endian, normalised (the top bit of the last
/// set), ceil(p / 32) of them for precision p, the bits below p zero. MPFR's own convention with
/// 32-bit limbs, so converting either way moves bits and changes none.
package struct OrbitLimbs: Equatable, Sendable {
    package var negative: Bool
    package var zero: Bool
    package var exponent: Int
    package var limbs: [UInt32]

    package init(negative: Bool, zero: Bool, exponent: Int, limbs: [UInt32]) {
        self.negative = negative
        self.zero = zero
        self.exponent = exponent
        self.limbs = limbs
    }

    /// The limb count for precision `bits`.
    package static func count(bits: Int) -> Int { (bits + 31) / 32 }

    /// A finite value, at its own precision.
    package init(_ value: BigFloat) {
        let bits = value.precision.bits
        self = value.withPointer { OrbitLimbs($0, bits: bits) }
    }

    /// The value at precision `bits` (the one its limbs were made at).
    package func bigFloat(bits: Int) -> BigFloat {
        var v = BigFloat(precision: Precision(bits: bits))
        v.withMutablePointer { write(to: $0, bits: bits) }
        return v
    }

    /// A finite MPFR value at precision `bits` (its own precision must be `bits`).
    init(_ v: UnsafePointer<__mpfr_struct>, bits: Int) {
        let count = Self.count(bits: bits)
        negative = mpfr_signbit(v) != 0
        guard fathom_mpfr_regular_p(v) != 0 else {
            zero = true
            exponent = 0
            limbs = Array(repeating: 0, count: count)
            return
        }
        zero = false
        exponent = Int(fathom_mpfr_exponent(v))
        // MPFR's 64-bit limbs hold 64 ceil(p / 64) bits, at most 32 more than ours: the top words.
        let words = 2 * ((bits + 63) / 64)
        let d = fathom_mpfr_significand(v)!
        limbs = (0..<count).map { i in
            let k = words - count + i
            return UInt32(truncatingIfNeeded: d[k / 2] >> (32 * UInt64(k % 2)))
        }
    }

    /// Writes the value into `v`, whose precision is `bits`.
    func write(to v: UnsafeMutablePointer<__mpfr_struct>, bits: Int) {
        guard !zero else {
            mpfr_set_zero(v, negative ? -1 : 1)
            return
        }
        mpfr_set_ui(v, 1, MPFR_RNDN)  // regular, so its significand and exponent can be set
        let words = 2 * ((bits + 63) / 64)
        let d = fathom_mpfr_significand(v)!
        for i in 0..<(words / 2) { d[i] = 0 }
        for (i, limb) in limbs.enumerated() {
            let k = words - limbs.count + i
            d[k / 2] |= mp_limb_t(limb) << (32 * UInt64(k % 2))
        }
        mpfr_set_exp(v, mpfr_exp_t(exponent))
        mpfr_setsign(v, v, negative ? 1 : 0, MPFR_RNDN)
    }
}

/// Where a reference orbit's z^2 + c steps can run besides MPFR on the CPU: a GPU, or the CPU
/// emulation of its kernels (FathomGPU). Its steps are MPFRStep.zPowerPlusC's, bit for bit.
package protocol ReferenceStepDevice: AnyObject, Sendable {
    /// The device, for reports.
    var deviceName: String { get }
    /// An orbit from z with parameter c at `bits`; throws where the device cannot hold it.
    func startOrbit(bits: Int, z: (OrbitLimbs, OrbitLimbs), c: (OrbitLimbs, OrbitLimbs)) throws -> any DeviceOrbit
}

/// One orbit on a `ReferenceStepDevice`.
package protocol DeviceOrbit: AnyObject {
    /// Takes up to `steps` steps, writing step k's `DeviceOrbitStep.words` Doubles at
    /// `out[12k ...]` (`DeviceOrbitStep`), and stops after an escape. Returns the steps taken;
    /// `flagged`: the last of them needs the host (its values are not written).
    func run(steps: Int, into out: UnsafeMutablePointer<Double>) throws -> (taken: Int, flagged: Bool)
    /// z after the last step.
    func current() throws -> (OrbitLimbs, OrbitLimbs)
}

/// One step as a device writes it, 12 Doubles: x and y rounded to Doubles (mpfr_get_d), their
/// low words (x - hi rounded), x's and y's significand and exponent as mpfr_get_d_2exp gives
/// them (the host keeps those below 2^-1000), and where Z is near |Z| = 2 the escape test the
/// host makes in MPFR (`ReferenceOrbit`): the gap 4 - (x^2 + y^2) as mpfr_get_d_2exp gives it,
/// or escaped.
package struct DeviceOrbitStep {
    package static let words = 12
    package enum EscapeTest: Equatable {
        case escaped
        case gap(FloatExp)
    }
    package var values: (Double, Double, Double, Double)
    package var x: FloatExp, y: FloatExp
    /// Whether x and y are nonzero (a zero's significand is zero).
    package var xNonzero: Bool, yNonzero: Bool
    package var escape: EscapeTest?

    /// Step k of `out` (words 10: 0 no test, 1 gap, 2 escaped).
    init(_ v: UnsafePointer<Double>) {
        values = (v[0], v[1], v[2], v[3])
        x = FloatExp(normalizing: v[4], Int(v[5]))
        y = FloatExp(normalizing: v[6], Int(v[7]))
        xNonzero = v[4] != 0
        yNonzero = v[6] != 0
        switch v[10] {
        case 2: escape = .escaped
        case 1: escape = .gap(FloatExp(normalizing: v[8], Int(v[9])))
        default: escape = nil
        }
    }
}

/// An orbit's steps on a `ReferenceStepDevice`, taken in batches: `stored()` hands out each
/// step's Doubles as the device rounded them; after a flagged step it reads z into MPFR
/// registers (`x`, `y`) and returns nil, and the orbit's loop rounds and tests that step in
/// MPFR as it does for the CPU's steps.
struct DeviceStep: ReferenceStep {
    let orbit: any DeviceOrbit
    let ws: MPFRWorkspace
    let bits: Int
    /// Steps still allowed (the orbit's limit): no batch runs past it.
    var remaining: Int
    let batch: Int
    let buffer: UnsafeMutablePointer<Double>
    var next = 0, available = 0, flaggedLast = false
    /// The first `checkedSteps` steps taken again in MPFR on the host and compared with the
    /// device's, every stored Double bit for bit: a kernel, driver or device that goes wrong is
    /// reported (`RenderError.deviceOrbit`), not rendered (at 380,000 bits about 0.2 s an orbit).
    static let checkedSteps = 64
    var checker: MPFRWorkspace?
    var checked = 0
    let scratch: MPFRWorkspace

    init(device: any ReferenceStepDevice, z: BigComplex, c: BigComplex, precision: Precision, maxSteps: Int) throws {
        bits = precision.bits
        ws = MPFRStep.workspace(z: z, c: c, precision: precision)
        orbit = try device.startOrbit(
            bits: bits, z: (OrbitLimbs(ws[0], bits: bits), OrbitLimbs(ws[1], bits: bits)),
            c: (OrbitLimbs(ws[2], bits: bits), OrbitLimbs(ws[3], bits: bits)))
        remaining = maxSteps
        // About 1 MB of Doubles a batch, fewer at high precision (progress and cancellation
        // are polled between batches).
        batch = bits >= 100_000 ? 256 : bits >= 10_000 ? 4096 : 32768
        buffer = .allocate(capacity: DeviceOrbitStep.words * batch)
        checker = MPFRStep.workspace(z: z, c: c, precision: precision)
        scratch = MPFRWorkspace(count: 1, precision: precision)
    }

    /// The checker's next step against the device's values (nil: a flagged step, whose z the
    /// host read into `ws`).
    private mutating func check(_ values: DeviceOrbitStep?) throws {
        guard let ws = checker else { return }
        MPFRStep.zPowerPlusC(ws, power: 2)
        checked += 1
        if checked >= Self.checkedSteps { checker = nil }
        let step = checked
        func differs() -> RenderError {
            RenderError.deviceOrbit("step \(step) differs from MPFR's; render on the CPU (backend cpu)")
        }
        guard let v = values else {
            if mpfr_equal_p(ws[0], self.ws[0]) == 0 || mpfr_equal_p(ws[1], self.ws[1]) == 0 { throw differs() }
            return
        }
        let x = ReferenceOrbit.rounded(ws[0], scratch: scratch[0]),
            y = ReferenceOrbit.rounded(ws[1], scratch: scratch[0])
        let expected = [x.hi, y.hi, x.lo, y.lo], got = [v.values.0, v.values.1, v.values.2, v.values.3]
        if zip(expected, got).contains(where: { $0.bitPattern != $1.bitPattern }) { throw differs() }
    }

    var x: UnsafeMutablePointer<__mpfr_struct> { ws[0] }
    var y: UnsafeMutablePointer<__mpfr_struct> { ws[1] }
    var storedY: (hi: Double, lo: Double)? { nil }

    mutating func step() { preconditionFailure("DeviceStep steps through stored()") }

    mutating func stored() throws -> DeviceOrbitStep? {
        if next == available {
            let (taken, flagged) = try orbit.run(steps: Swift.max(1, Swift.min(batch, remaining)), into: buffer)
            remaining -= taken
            next = 0
            available = taken
            flaggedLast = flagged
        }
        let k = next
        next += 1
        if flaggedLast && next == available {
            let (zx, zy) = try orbit.current()
            zx.write(to: ws[0], bits: bits)
            zy.write(to: ws[1], bits: bits)
            try check(nil)
            return nil
        }
        let values = DeviceOrbitStep(buffer + DeviceOrbitStep.words * k)
        try check(values)
        return values
    }

    /// Valid after a flagged step (only those reach the escape test's MPFR branch).
    mutating func squares(_ xx: UnsafeMutablePointer<__mpfr_struct>, _ yy: UnsafeMutablePointer<__mpfr_struct>) {
        mpfr_sqr(xx, ws[0], MPFR_RNDN)
        mpfr_sqr(yy, ws[1], MPFR_RNDN)
    }

    func stop() { buffer.deallocate() }
}
