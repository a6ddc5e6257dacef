import ArbitraryPrecision
import Foundation
import Testing

@Suite struct DecimalStringTests {
    @Test("decimal strings drop trailing zeros, keep sign and exponent, and read back")
    func shapes() throws {
        let p = Precision(bits: 200)
        for (text, expected) in [
            ("1.5", "1.5"), ("-1.5", "-1.5"), ("100", "1e2"), ("-0.000244140625", "-2.44140625e-4"), ("7", "7"),
            ("0", "0"),
        ] {
            let value = try BigFloat(parsing: text, precision: p)
            #expect(value.decimalString() == expected, "\(text)")
            #expect(try BigFloat(parsing: value.decimalString(), precision: p) == value)
        }
        #expect(try BigFloat(parsing: "1.25", precision: p).decimalString(significantDigits: 10) == "1.25")
    }

    // Found by the reference orbit fuzzer (Documentation/Reliability.md): trimming the zeros
    // of mpfr_get_str's digits was quadratic, a hang for a short value at a high precision.
    // (Its speed is fathom-bench's and the fuzzers' -timeout's to watch; here, the value.)
    @Test("a short value at 2^22 bits prints as itself, its million trailing zeros trimmed")
    func longTrailingZeros() throws {
        let value = try BigFloat(parsing: "1.5", precision: Precision(bits: 1 << 22))
        #expect(value.decimalString() == "1.5")
        #expect(
            try BigFloat(parsing: "-6.103515625e-5", precision: Precision(bits: 1 << 22)).decimalString()
                == "-6.103515625e-5")  // -2^-14
    }
}
