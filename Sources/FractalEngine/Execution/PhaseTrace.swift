import Dispatch
import Foundation

/// Phase times of a render or a GPU pass on stderr when FATHOM_TRACE is set
/// (Documentation/GPU.md).
public struct PhaseTrace {
    public static let enabled = getenv("FATHOM_TRACE") != nil
    let title: String
    var last = DispatchTime.now().uptimeNanoseconds
    var phases: [(String, Double)] = []

    public init(_ title: String) { self.title = title }

    /// Ends the phase named `phase`.
    public mutating func mark(_ phase: String) {
        guard PhaseTrace.enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        phases.append((phase, Double(now - last) / 1e6))
        last = now
    }

    public func print() {
        guard PhaseTrace.enabled else { return }
        let line =
            title + ": " + phases.map { "\($0.0) " + String(format: "%.1f ms", $0.1) }.joined(separator: ", ") + "\n"
        PhaseTrace.write(line)
    }

    /// `line` on stderr.
    public static func write(_ line: String) { FileHandle.standardError.write(Data(line.utf8)) }
}

/// Runs `body` and adds its wall time, in seconds, to `total` (a phase's running time).
package func addingSeconds<R>(to total: inout Double, _ body: () throws -> R) rethrows -> R {
    let start = DispatchTime.now().uptimeNanoseconds
    defer { total += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    return try body()
}
