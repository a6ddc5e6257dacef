import ArbitraryPrecision
import CMPFR
import Foundation
import FractalNumerics
import Testing

/// Significant digits and decimal exponent of a decimal string: "-0.00120e5" -> ("-", "12", 2).
func normalizedDecimal(_ text: String) -> (sign: String, digits: String, exponent: Int) {
    var s = Substring(text)
    var sign = ""
    if s.first == "-" || s.first == "+" { sign = s.first == "-" ? "-" : ""; s = s.dropFirst() }
    var exponent = 0
    if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        exponent = Int(s[s.index(after: e)...])!
        s = s[..<e]
    }
    let point = s.firstIndex(of: ".") ?? s.endIndex
    let intPart = s[..<point]
    let fracPart = point < s.endIndex ? s[s.index(after: point)...] : ""
    var digits = String(intPart) + String(fracPart)
    var pointPosition = intPart.count  // digits before the point
    while digits.first == "0" { digits.removeFirst(); pointPosition -= 1 }
    while digits.last == "0" { digits.removeLast() }
    return (sign, digits, exponent + pointPosition)
}

@Suite("BigFloat and BigComplex")
struct BigFloatTests {
    @Test("the 60,000-digit coordinates of e52465 parse and print back digit for digit")
    func hugeCoordinates() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/e52465", withExtension: "json"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let center = json["center"] as! [String]
        for text in center {
            let expected = normalizedDecimal(text)
            #expect(expected.digits.count > 59_000)
            let precision = Precision.forDecimalDigits(expected.digits.count)
            let value = try BigFloat(parsing: text, precision: precision)
            let printed = value.decimalString(significantDigits: expected.digits.count)
            let got = normalizedDecimal(printed)
            #expect(got.sign == expected.sign)
            #expect(got.exponent == expected.exponent)
            #expect(got.digits == expected.digits)
            // And reading the printed text again gives the same binary value.
            #expect(try BigFloat(parsing: printed, precision: precision) == value)
        }
        let radius = try BigFloat(parsing: json["radius"] as! String, precision: Precision(bits: 64))
        #expect(Swift.abs(radius.floatExpValue.log2Magnitude - (-52465 + 0.2882) * 3.321928094887362) < 0.01)
    }

    @Test("decimal output round-trips at every precision", arguments: [53, 64, 113, 300, 1000, 5000])
    func roundTrip(bits: Int) throws {
        let precision = Precision(bits: bits)
        var state: UInt64 = UInt64(bits)
        for _ in 0..<200 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let numerator = BigFloat(Int(truncatingIfNeeded: state >> 1), precision: precision)
            let exponentShift = Int(state % 4001) - 2000
            let value = (numerator / BigFloat(7, precision: precision)).timesPowerOfTwo(exponentShift)
            let text = value.decimalString()
            #expect(try BigFloat(parsing: text, precision: precision) == value, "\(text)")
        }
    }

    @Test("conversions to Double, DoubleDouble and FloatExp are correctly rounded")
    func conversions() throws {
        for text in ["0.1", "-2.5e-300", "1.7976931348623157e308", "3.14159265358979323846264338327950288"] {
            let v = try BigFloat(parsing: text, precision: Precision(bits: 400))
            #expect(v.doubleValue == Double(text)!)
            let dd = v.doubleDoubleValue
            #expect(dd.hi == Double(text)!)
            let rest = (v - BigFloat(dd.hi, precision: Precision(bits: 400))).doubleValue
            #expect(dd.lo == rest)
            let fe = v.floatExpValue
            #expect(fe.doubleValue == Double(text)!)
        }
        // Exponents beyond Double.
        let deep = try BigFloat(parsing: "-3e-400000", precision: Precision(bits: 100))
        #expect(deep.doubleValue == 0)
        let fe = deep.floatExpValue
        #expect(fe.significand < 0)
        #expect(
            BigFloat(fe, precision: Precision(bits: 100)).rounded(to: Precision(bits: 53))
                == deep.rounded(to: Precision(bits: 53)))
    }

    @Test(
        "malformed decimal strings are rejected",
        arguments: [
            "", "-", ".", "1.2.3", "abc", "1e", "1e+", "--1", "+-1", "inf", "nan", "0x10", " 1", "1 ", "1,5", "1e5.5",
            "1e99999999999999999999", "@inf@", "1_000",
        ])
    func malformed(text: String) {
        #expect(throws: ArbitraryPrecisionError.notADecimalNumber(text)) {
            try BigFloat(parsing: text, precision: Precision(bits: 64))
        }
    }

    /// m 2^e exactly, at `precision` (m < 2^64, given as its high and low 32-bit halves).
    static func exact(_ high: Int, _ low: Int, times2ToThe e: Int, negative: Bool = false, precision: Precision)
        -> BigFloat
    {
        let m = BigFloat(high, precision: precision).timesPowerOfTwo(32) + BigFloat(low, precision: precision)
        return (negative ? -m : m).timesPowerOfTwo(e)
    }

    @Test("well-formed decimal strings parse to their exact values (sign of zero included)")
    func wellFormed() throws {
        let p = Precision(bits: 64)
        for (text, value) in [
            ("0", 0.0), ("-0", -0.0), ("1", 1), ("+1.5", 1.5), ("-.5", -0.5), ("5.", 5), ("2E+10", 2e10),
            ("0.000", 0), ("-0.0e-7", -0.0), ("1048576.25", 1048576.25),
        ] {
            let v = try BigFloat(parsing: text, precision: p)
            // These are exact in binary: the value itself, and its sign (a zero's too).
            #expect(v == BigFloat(value, precision: p), "\(text)")
            #expect(v.doubleValue.sign == value.sign && v.doubleValue == value, "\(text)")
        }
        // Not exact in binary: the nearest 64-bit value, m 2^e, from exact rational arithmetic
        // (Python's Fraction: m = round(x 2^-e) to nearest, 2^63 <= m < 2^64).
        // 0.1 = 0xCCCCCCCCCCCCCCCD 2^-67.
        #expect(
            try BigFloat(parsing: "0.1", precision: p)
                == Self.exact(0xCCCC_CCCC, 0xCCCC_CCCD, times2ToThe: -67, precision: p))
        // 1e-100000 = 0x9211CB7471EE2149 2^-332256.
        #expect(
            try BigFloat(parsing: "1e-100000", precision: p)
                == Self.exact(0x9211_CB74, 0x71EE_2149, times2ToThe: -332256, precision: p))
        // -3e-400000 = -0xA2CE4380D6D52743 2^-1328833.
        #expect(
            try BigFloat(parsing: "-3e-400000", precision: p)
                == Self.exact(0xA2CE_4380, 0xD6D5_2743, times2ToThe: -1_328_833, negative: true, precision: p))
        // And a neighbour is not equal: the comparison sees the last bit.
        #expect(
            try BigFloat(parsing: "0.1", precision: p)
                != Self.exact(0xCCCC_CCCC, 0xCCCC_CCCC, times2ToThe: -67, precision: p))
    }

    @Test("copies are independent (copy-on-write)")
    func copyOnWrite() {
        let a = BigFloat(1.5, precision: Precision(bits: 128))
        var b = a
        b.withMutablePointer { _ = mpfr_set_d($0, 7, MPFR_RNDN) }
        #expect(a.doubleValue == 1.5)
        #expect(b.doubleValue == 7)
    }

    @Test("the workspace computes in place what the operators compute")
    func workspace() throws {
        let p = Precision(bits: 256)
        let ws = MPFRWorkspace(count: 3, precision: p)
        let x = try BigFloat(parsing: "1.000000000000000000000000000000000000000000001", precision: p)
        let y = try BigFloat(parsing: "-0.333333333333333333333333333333333333333", precision: p)
        ws.set(0, x)
        ws.set(1, y)
        mpfr_mul(ws[2], ws[0], ws[1], MPFR_RNDN)
        mpfr_add(ws[2], ws[2], ws[0], MPFR_RNDN)
        #expect(ws.value(2) == x * y + x)
    }

    @Test("BigComplex arithmetic matches its definition")
    func complex() throws {
        let p = Precision(bits: 200)
        let a = try BigComplex(parsingRe: "0.25", im: "-1.5", precision: p)
        let b = try BigComplex(parsingRe: "3", im: "0.5", precision: p)
        let q = (a * b) / b
        #expect(((q - a).lengthSquared).doubleValue < 1e-100)
        #expect(a.squared == a * a)
        #expect(a.squared.re.doubleValue == 0.0625 - 2.25)
    }
}

@Suite("Precision from user input")
struct PrecisionInputTests {
    @Test("a precision outside MPFR's range is an error, not a trap; digits beyond 80 million cap at the maximum")
    func range() throws {
        #expect(try Precision.bits(200).bits == 200)
        #expect(try Precision.bits(Precision.maximum.bits) == .maximum)
        for bad in [0, -5, Precision.maximum.bits + 1, Int.max, Int.min] {
            #expect(throws: ArbitraryPrecisionError.precisionOutOfRange(bad)) { try Precision.bits(bad) }
        }
        #expect("\(ArbitraryPrecisionError.precisionOutOfRange(0))" == "precision: 0 bits is outside 1...268435456")
        #expect(Precision.forDecimalDigits(Int.max) == .maximum)
        #expect(Precision.forDecimalDigits(-3) == .double)
        #expect(Precision.forDecimalDigits(100).bits == 349)  // ceil(100 log2 10) + 16
        // A number at the precision `bits(_:)` gave: MPFR takes it.
        #expect(try BigFloat(parsing: "1.5", precision: try Precision.bits(77)).precision.bits == 77)
    }
}
