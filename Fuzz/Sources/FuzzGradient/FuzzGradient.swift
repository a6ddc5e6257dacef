import Fathom
import Foundation
import FuzzSupport

/// Gradient files (`render --gradient FILE`): the bytes as text, as the render command reads
/// them, then what a render does with the gradient: the JSON round trip that stores it in
/// the location file, and colours across the cycle, as 8- and 16-bit samples.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzGradient(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let gradient = try? Gradient.parse(text) else { return 0 }
    guard let json = try? JSONEncoder().encode(gradient),
        let back = try? JSONDecoder().decode(Gradient.self, from: json)
    else {
        preconditionFailure("a gradient does not survive its JSON")
    }
    precondition(back == gradient, "a gradient reads back differently from its JSON")
    for t in [-1.5, -0.25, 0, 0.1, 0.5, 0.999, 1, 7.3, 1e20] {
        let c = gradient.color(at: t)
        precondition(c.r.isFinite && c.g.isFinite && c.b.isFinite, "gradient colour at \(t) is not finite")
        _ = c.bytes
        _ = c.words
    }
    return 0
}
