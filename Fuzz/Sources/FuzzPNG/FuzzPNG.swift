import Fathom
import Foundation
import FuzzSupport

/// PNG metadata: the chunk walk of `PNGReader.textChunks`, then the location stored in a
/// Fathom PNG's `fathom-location` chunk as `fathom info image.png` reads it, then the checks
/// of `CheckLocation`.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    guard (try? PNGReader.textChunks(bytes: bytes, path: "fuzz.png")) != nil else { return 0 }
    guard let file = try? LocationFile.decode(Data(bytes), path: "fuzz.png") else { return 0 }
    CheckLocation.check(file)
    return 0
}
