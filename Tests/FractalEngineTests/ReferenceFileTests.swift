import ArbitraryPrecision
import Foundation
import FractalEngine
import FractalNumerics
import Testing

/// Reference orbit files (version 4, compressed, with a checksum; version 3 still read): a
/// round trip keeps every field; a truncated, altered or old file, or one whose fields are out
/// of range, is a one-line `ReferenceFileError.malformed`, never an orbit.
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
            #expect(back.compressed == orbit.compressed && back.hasLowWords == orbit.hasLowWords)
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
                    == "version \(version) file, written by an older Fathom: save it again (PerturbationSettings.saveReference)"
            )
        }
        bytes[8] = 5
        #expect(ReferenceFileTests.reason(bytes) == "version 5, but this Fathom reads versions 3 and 4 only")
    }

    /// Where the values begin: after the header (39 bytes) and `strings` length-prefixed texts.
    static func valuesOffset(_ bytes: [UInt8], strings: Int) -> Int {
        var at = 39
        for _ in 0..<strings {
            var length = 0
            for k in 0..<8 { length |= Int(bytes[at + k]) << (8 * k) }
            at += 8 + length
        }
        return at
    }

    static func append(_ bytes: inout [UInt8], _ value: UInt64) {
        for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    /// A version 3 file (the values as plain arrays), as earlier Fathoms wrote it, reads as
    /// the same orbit.
    @Test("version 3 files, with plain values, are still read, to the same orbit")
    func versionThree() throws {
        let orbit = try ReferenceFileTests.orbits()[0]
        let v4 = [UInt8](orbit.fileData())
        #expect(orbit.count <= 128 && orbit.hasLowWords && !orbit.escapeGaps.isEmpty)
        // v4 values: stride, c (4), one key (4 lanes), one key offset, the nibble count, the bytes.
        let values = ReferenceFileTests.valuesOffset(v4, strings: 2)
        var nibbles = 0
        for k in 0..<8 { nibbles |= Int(v4[values + 80 + k]) << (8 * k) }
        let tables = values + 88 + (nibbles + 1) / 2
        var v3 = Array(v4[0..<values])
        v3[8] = 3
        let plain = orbit.compressed.decoded()
        for array in [plain.re, plain.im, plain.reLow, plain.imLow] {
            for v in array { ReferenceFileTests.append(&v3, v.bitPattern) }
        }
        v3 += v4[tables..<(v4.count - 8)]
        ReferenceFileTests.append(&v3, ReferenceOrbit.fileChecksum(v3))
        let read = try ReferenceOrbit.decode(v3, path: "o.orbit")
        #expect(read.compressed == orbit.compressed)
        #expect(read.escapeGaps == orbit.escapeGaps && read.count == orbit.count && read.escaped == orbit.escaped)
        // And the compressed file is the smaller: 32 bytes a step against about 3.
        #expect(v4.count < v3.count)
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
        // The compressed values (a Julia orbit: four texts; one key of two lanes): the key
        // stride, a key that is not finite, a key offset, the nibble count.
        let v = ReferenceFileTests.valuesOffset(good, strings: 4)
        #expect(patched(v, 64) == "key stride 64, but this Fathom reads 128 only")
        #expect(patched(v + 40, Double.nan.bitPattern) == "keys: a value is not finite")
        #expect(patched(v + 48, Double.infinity.bitPattern) == "keys: a value is not finite")
        #expect(
            patched(v + 56, 1) == "its compressed values are damaged: key 0 is not where the steps before it end")
        #expect(patched(v + 64, UInt64(Int.max))?.hasPrefix("9223372036854775807 nibbles do not fit") == true)
        #expect(patched(v + 64, UInt64(bitPattern: -3))?.hasPrefix("-3 nibbles do not fit") == true)
        var nibbles = 0
        for k in 0..<8 { nibbles |= Int(good[v + 64 + k]) << (8 * k) }
        #expect(patched(v + 64, UInt64(nibbles - 2)) != nil)  // the steps end early: refused, never a trap
        #expect(patched(v + 64, UInt64(nibbles + 2)) != nil)
        var cut = good
        cut[v + 72] = 0xff  // a first varint of many nibbles: runs on through the others
        #expect(ReferenceFileTests.reason(ReferenceFileTests.resealed(cut)) != nil)
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
