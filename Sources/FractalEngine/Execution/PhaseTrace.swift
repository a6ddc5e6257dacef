import Dispatch
import Foundation

/// Phase times of a render or a GPU pass on stderr when FATHOM_TRACE is set
/// (Documentation/GPU.md).
package struct PhaseTrace {
    package static let enabled = getenv("FATHOM_TRACE") != nil
    let title: String
    var last = DispatchTime.now().uptimeNanoseconds
    var phases: [(String, Double, Int)] = []

    package init(_ title: String) { self.title = title }

    /// Ends the phase named `phase`.
    package mutating func mark(_ phase: String) {
        guard PhaseTrace.enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        phases.append((phase, Double(now - last) / 1e6, PhaseTrace.residentMiB()))
        last = now
    }

    package func print() {
        guard PhaseTrace.enabled else { return }
        let line =
            title + ": "
            + phases.map { "\($0.0) " + String(format: "%.1f ms (%d MiB)", $0.1, $0.2) }.joined(separator: ", ") + "\n"
        PhaseTrace.write(line)
    }

    /// The process's resident memory now, in MiB (0 where /proc cannot tell).
    package static func residentMiB() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let n = read(fd, &bytes, bytes.count)
        guard n > 0 else { return 0 }
        let fields = String(decoding: bytes[..<n], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return (pages * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20
    }

    /// `line` on stderr.
    package static func write(_ line: String) { FileHandle.standardError.write(Data(line.utf8)) }
}

/// Runs `body` and adds its wall time, in seconds, to `total` (a phase's running time).
package func addingSeconds<R>(to total: inout Double, _ body: () throws -> R) rethrows -> R {
    let start = DispatchTime.now().uptimeNanoseconds
    defer { total += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    return try body()
}

/// One perturbation pass as it ran: what it was for, the pixels it covered, its wall time, its
/// loop steps (each an approximation step or one perturbation step), the threads it ran on and
/// where: the form that ran it and the pixels it kept in flight on a core (1: the scalar kernel,
/// one at a time). `fathom-bench` prints each pass's nanoseconds a loop step a core.
package struct PassTiming: Sendable, Codable {
    package let label: String
    package let deltas: String
    package let pixels: Int
    package let seconds: Double
    package let loopSteps: Int
    package let threads: Int
    package let form: String
    package let laneWidth: Int
    /// Whether it read the orbit streamed from its compressed form (`OrbitResidency`).
    package let streamed: Bool

    /// Wall time times threads over loop steps, in nanoseconds (0 for a pass of no steps).
    package var nanosecondsPerStepPerCore: Double {
        loopSteps > 0 ? seconds * 1e9 * Double(threads) / Double(loopSteps) : 0
    }
}

/// The passes of one render, in order (kept by its phases, which run one after another on the
/// render's thread).
final class PassTimings {
    var passes: [PassTiming] = []
}
