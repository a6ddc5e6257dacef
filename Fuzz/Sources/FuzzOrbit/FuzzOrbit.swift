import Fathom
import FuzzSupport

/// Reference orbit files (`--load-reference`). Each input is decoded twice: as it is (random
/// bytes almost never pass the checksum, so this covers the checks before it), and with its
/// last 8 bytes replaced by the checksum of the rest, so the mutations reach the parser behind
/// it. An orbit that decodes is then used as the renderer uses one (its values as Double and
/// double-double), and written and read again: the same orbit.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOrbit(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    check(try? ReferenceOrbit.decode(bytes, path: "fuzz.orbit"))
    if bytes.count >= 20 {
        let checksum = ReferenceOrbit.fileChecksum(bytes[0..<bytes.count - 8])
        for k in 0..<8 { bytes[bytes.count - 8 + k] = UInt8(truncatingIfNeeded: checksum >> (8 * k)) }
        check(try? ReferenceOrbit.decode(bytes, path: "fuzz.orbit"))
    }
    return 0
}

func check(_ orbit: ReferenceOrbit?) {
    guard let orbit else { return }
    let plain = orbit.values(as: Double.self), fine = orbit.values(as: DoubleDouble.self)
    precondition(plain.count == orbit.count && fine.count == orbit.count)
    guard let back = try? ReferenceOrbit.decode([UInt8](orbit.fileData()), path: "fuzz-back.orbit") else {
        preconditionFailure("an orbit Fathom read does not read back after writing")
    }
    precondition(
        back.compressed == orbit.compressed
            && back.tiny == orbit.tiny && back.escapeGaps == orbit.escapeGaps && back.point == orbit.point
            && back.juliaC == orbit.juliaC && back.escaped == orbit.escaped && back.power == orbit.power
            && back.precision == orbit.precision, "an orbit reads back differently after writing")
}
