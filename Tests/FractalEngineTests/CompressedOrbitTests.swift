import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("Compressed reference orbits")
struct CompressedOrbitTests {
    /// Bit patterns, so -0 and +0 differ.
    static func bits(_ a: [Double]) -> [UInt64] { a.map(\.bitPattern) }

    /// The orbit is held compressed: decoding gives back direct MPFR iteration's Doubles, high
    /// and low words, bit for bit, read from the start or from any step; and the size stays small.
    @Test("a compressed orbit decodes to MPFR's Doubles bit for bit, from the start or any step")
    func roundTrip() throws {
        let cases: [(String, String, String?, Int, Int, Bool, Int)] = [
            // re, im, Julia c (re,im), power, steps, low words, bits
            (PerturbationTests.e55Re, PerturbationTests.e55Im, nil, 2, 5000, true, 256),
            (PerturbationTests.e55Re, PerturbationTests.e55Im, nil, 2, 5000, false, 256),
            ("-1.99999999999999999999999999999999999999", "1e-45", nil, 2, 300, true, 400),
            ("-0.12", "0.75", nil, 2, 20000, true, 1000),
            ("0.3", "0.5", nil, 2, 1000, true, 200),
            ("0.1", "-0.2", "-0.8,0.156", 2, 3000, true, 200),
            ("-0.5", "0.55", nil, 3, 3000, true, 200),
        ]
        for (re, im, julia, power, steps, low, bits) in cases {
            let p = Precision(bits: bits)
            let point = try BigComplex(parsingRe: re, im: im, precision: p)
            let jc = try julia.map {
                let parts = $0.split(separator: ",").map(String.init)
                return try BigComplex(parsingRe: parts[0], im: parts[1], precision: p)
            }
            let orbit = try ReferenceOrbit.compute(
                point: point, power: power, juliaC: jc, maxIterations: steps, precision: p, lowWords: low)
            let packed = orbit.compressed
            let d = packed.decoded()
            #expect(d.re.count == orbit.count && d.reLow.count == (low ? orbit.count : 0))
            // Every step decodes to direct MPFR iteration's value rounded to Double (and its low
            // word), and a cursor from any step reads the same.
            var z = jc == nil ? BigComplex(precision: p) : point
            let c = jc ?? point
            for n in 0..<orbit.count {
                if n > 0 { z = (power == 2 ? z.squared : z.squared * z) + c }
                if orbit.tiny[n] != nil { continue }
                let (x, y) = (z.re.doubleValue, z.im.doubleValue)
                guard d.re[n].bitPattern == x.bitPattern && d.im[n].bitPattern == y.bitPattern else {
                    Issue.record("\(re) power \(power) step \(n): \(d.re[n]), \(d.im[n]) against MPFR's \(x), \(y)")
                    break
                }
                if low {
                    let xl = (z.re - BigFloat(x, precision: p)).doubleValue
                    let yl = (z.im - BigFloat(y, precision: p)).doubleValue
                    guard d.reLow[n] == xl && d.imLow[n] == yl else {
                        Issue.record("\(re) step \(n): low words \(d.reLow[n]), \(d.imLow[n]) against \(xl), \(yl)")
                        break
                    }
                }
            }
            for n in [0, 1, 127, 128, 129, orbit.count / 2, orbit.count - 1] where n < orbit.count {
                let v = CompressedOrbit.Cursor(orbit: packed, at: n).value
                #expect(v.0.bitPattern == d.re[n].bitPattern && v.1.bitPattern == d.im[n].bitPattern)
                if low { #expect(v.2.bitPattern == d.reLow[n].bitPattern && v.3 == d.imLow[n]) }
            }
            let perStep = Double(packed.byteCount) / Double(orbit.count)
            let plain = Double(low ? 32 : 16)
            print(
                "compressed orbit \(re.prefix(12)) power \(power) low \(low): \(perStep) bytes a step (plain \(plain))")
            #expect(perStep < plain / 2, "\(re): \(perStep) bytes a step")
        }
    }
}
