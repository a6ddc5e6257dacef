import ArbitraryPrecision
import Foundation
import FractalEngine
import FractalNumerics
import Testing

/// Reference orbit files (version 3, with a checksum): a round trip keeps every field; a
/// truncated, altered or old file, or one whose fields are out of range, is a one-line
/// `ReferenceFileError.malformed`, never an orbit.
@Suite struct ReferenceFileTests {
    static let precision = Precision(bits: 200)

    /// An orbit near c = -2 (escape gaps), with low words; and a Julia orbit.
    static func orbits() throws -> [ReferenceOrbit] {
        let tip = try BigComplex(parsingRe: "-1.99999999999999999999999999999999999999", im: "0", precision: precision)
        let julia = try BigComplex(parsingRe: "0.1", im: "0.2", precision: precision)
        let c = try BigComplex(parsingRe: "-0.8", im: "0.156", precision: precision)
        return [
            try ReferenceOrbit.compute(
                point: tip, power: 2, juliaC: nil, maxIterations: 60, precision: precision, lowWords: true),
            try ReferenceOrbit.compute(point: julia, power: 2, juliaC: c, maxIterations: 50, precision: precision),
        ]
    }

    /// `bytes` with a correct checksum again (for checks behind it).
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        let sum = ReferenceOrbit.fileChecksum(b[0..<b.count - 8])
        for k in 0..<8 { b[b.count - 8 + k] = UInt8(truncatingIfNeeded: sum >> (8 * k)) }
        return b
    }

    static func set(_ bytes: inout [UInt8], at offset: Int, _ value: UInt64) {
        for k in 0..<8 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    /// The reason of the one-line error `bytes` give, or nil if they read as an orbit.
    static func reason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ReferenceOrbit.decode(bytes, path: "o.orbit")
            return nil
        } catch {
            guard case .malformed(let path, let reason) = error else { return "unexpected \(error)" }
            #expect(path == "o.orbit")
            #expect(!error.description.contains("\n"), "\(error)")
            return reason
        }
    }

    @Test("FNV-1a 64 gives the published test vectors")
    func checksumVectors() {
        #expect(ReferenceOrbit.fileChecksum([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(ReferenceOrbit.fileChecksum(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(ReferenceOrbit.fileChecksum(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test("a written orbit reads back with every field equal, from the file and from its bytes")
    func roundTrip() throws {
        for orbit in try ReferenceFileTests.orbits() {
            let path = NSTemporaryDirectoryPath() + "/fathom-ref-\(UInt32.random(in: 0...UInt32.max)).orbit"
            defer { removeFile(path) }
            try orbit.write(to: path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == orbit.fileData())
            let back = try ReferenceOrbit.read(from: path)
            #expect(
                back.re == orbit.re && back.im == orbit.im && back.reLow == orbit.reLow && back.imLow == orbit.imLow)
            #expect(back.point == orbit.point && back.juliaC == orbit.juliaC && back.power == orbit.power)
            #expect(back.precision == orbit.precision && back.escaped == orbit.escaped)
            #expect(back.tiny == orbit.tiny && back.escapeGaps == orbit.escapeGaps)
        }
        #expect(try ReferenceFileTests.orbits()[0].escapeGaps.count > 20)
    }

    @Test("every truncation of a file is a one-line error")
    func truncated() throws {
        let bytes = [UInt8](try ReferenceFileTests.orbits()[1].fileData())
        for n in 0..<bytes.count {
            let reason = ReferenceFileTests.reason(Array(bytes[0..<n]))
            #expect(reason != nil, "\(n) bytes")
        }
        #expect(ReferenceFileTests.reason(Array(bytes[0..<7])) == "it does not start with FATHOMRO")
        #expect(
            ReferenceFileTests.reason(Array(bytes[0..<bytes.count - 1]))
                == "checksum mismatch: the file is truncated or altered")
        #expect(ReferenceFileTests.reason(bytes + [0]) == "checksum mismatch: the file is truncated or altered")
    }

    @Test("one flipped bit anywhere in a file is a one-line error")
    func flippedBit() throws {
        let bytes = [UInt8](try ReferenceFileTests.orbits()[0].fileData())
        for i in 0..<bytes.count {
            for bit in [0, 7] {
                var b = bytes
                b[i] ^= 1 << bit
                let reason = ReferenceFileTests.reason(b)
                #expect(reason != nil, "byte \(i) bit \(bit)")
                if i >= 12 { #expect(reason == "checksum mismatch: the file is truncated or altered") }
            }
        }
    }

    @Test("version 1 and 2 files, without a checksum, are refused with what to do")
    func oldVersion() throws {
        var bytes = Array(try ReferenceFileTests.orbits()[1].fileData().dropLast(8))
        for version: UInt8 in [1, 2] {
            bytes[8] = version
            #expect(
                ReferenceFileTests.reason(bytes)
                    == "version \(version) file, written by an older Fathom: render it again with --save-reference")
        }
        bytes[8] = 4
        #expect(ReferenceFileTests.reason(bytes) == "version 4, but this Fathom reads version 3 only")
    }

    // Offsets in a version 3 file: power 12, bits 20, count 28, flags 36..38, then the point.
    @Test("fields out of range are refused even with a correct checksum")
    func fieldsOutOfRange() throws {
        let orbit = try ReferenceFileTests.orbits()[1]
        let good = [UInt8](orbit.fileData())
        func patched(_ offset: Int, _ value: UInt64) -> String? {
            var b = good
            ReferenceFileTests.set(&b, at: offset, value)
            return ReferenceFileTests.reason(ReferenceFileTests.resealed(b))
        }
        #expect(ReferenceFileTests.reason(good) == nil)
        #expect(patched(12, 99) == "power 99 is outside 2...16")
        // Found by the fuzzer: a precision field of 2^24 bits took seconds per read.
        #expect(patched(20, 1 << 24) == "precision 16777216 bits is outside 53...4194304")
        #expect(patched(20, 52) == "precision 52 bits is outside 53...4194304")
        #expect(patched(28, UInt64(Int.max))?.hasPrefix("orbit length 9223372036854775807 does not fit") == true)
        #expect(patched(28, 0)?.hasPrefix("orbit length 0 does not fit") == true)
        #expect(patched(28, UInt64(bitPattern: -5))?.hasPrefix("orbit length -5 does not fit") == true)
        // The point's first text length (offset 39): huge, negative, zero.
        #expect(patched(39, UInt64(Int.max))?.hasPrefix("point.re: length") == true)
        #expect(patched(39, UInt64(bitPattern: -1))?.hasPrefix("point.re: length") == true)
        var text = good
        text[47] = 0x0a  // the point's first character: a newline stays out of the one-line message
        #expect(ReferenceFileTests.reason(ReferenceFileTests.resealed(text)) == "point.re is not a decimal number")
        var flags = good
        flags[37] = 2
        #expect(ReferenceFileTests.reason(ReferenceFileTests.resealed(flags)) == "a flag byte is not 0 or 1")
        // A value that is not finite: the last of re (im follows it, then two counts, then the checksum).
        let lastRe = good.count - 8 - 8 - 8 - 8 * orbit.count - 8
        #expect(patched(lastRe, Double.nan.bitPattern) == "re: a value is not finite")
        #expect(patched(lastRe, Double.infinity.bitPattern) == "re: a value is not finite")
        // The tiny and gap counts: negative (once a trap: a range 0..<-1) or larger than the orbit.
        #expect(patched(good.count - 24, UInt64(bitPattern: -1))?.hasPrefix("tiny values: -1 entries") == true)
        #expect(
            patched(good.count - 16, UInt64(Int.max))?.hasPrefix("escape gaps: 9223372036854775807 entries") == true)
        var extra = Array(good.dropLast(8)) + [0, 0, 0, 0, 0, 0, 0, 0]
        extra += [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(ReferenceFileTests.reason(ReferenceFileTests.resealed(extra)) == "8 bytes after the orbit")
    }

    @Test("tiny-value and gap entries out of order, past the orbit or out of range are refused")
    func sparseEntries() throws {
        let orbit = try ReferenceFileTests.orbits()[0]
        let good = [UInt8](orbit.fileData())
        #expect(orbit.tiny.isEmpty && !orbit.escapeGaps.isEmpty)
        // The gap table is last: count, then (index, significand, exponent) entries.
        let gapCount = good.count - 8 - 24 * orbit.escapeGaps.count - 8
        func patched(_ offset: Int, _ value: UInt64) -> String? {
            var b = good
            ReferenceFileTests.set(&b, at: offset, value)
            return ReferenceFileTests.reason(ReferenceFileTests.resealed(b))
        }
        #expect(
            patched(gapCount + 8, UInt64(orbit.count))
                == "escape gaps: index \(orbit.count) is out of order or past the orbit")
        #expect(patched(gapCount + 8 + 24, 0)?.hasPrefix("escape gaps: index 0 is out of order") == true)
        #expect(patched(gapCount + 16, Double.nan.bitPattern)?.hasPrefix("escape gaps: nan * 2^") == true)
        // Once a trap: a subnormal significand with exponent Int.min overflowed FloatExp's normalisation.
        #expect(patched(gapCount + 24, UInt64(bitPattern: Int64.min)) != nil)
        var sub = good
        ReferenceFileTests.set(&sub, at: gapCount + 16, Double.leastNonzeroMagnitude.bitPattern)
        ReferenceFileTests.set(&sub, at: gapCount + 24, UInt64(bitPattern: Int64.min))
        #expect(ReferenceFileTests.reason(ReferenceFileTests.resealed(sub))?.hasSuffix("is out of range") == true)
    }
}
