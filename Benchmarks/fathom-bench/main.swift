// fathom-bench: fixed cases, measured by wall time (never by timed tests).
// Usage: fathom-bench [--runs N] [--json] [--filter TEXT]
import Fathom
import Foundation

/// Keeps a value alive so the optimiser cannot drop the work that produced it.
@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

struct Case {
    let name: String
    let location: Location
    let settings: RenderSettings
}

struct Measurement: Codable {
    let name: String
    let path: String
    let threads: Int
    let width: Int
    let height: Int
    let runs: Int
    let medianSeconds: Double
    let bestSeconds: Double
    let iterations: Int
    /// Million iterations per second at the median time.
    let mips: Double
}

let args = CommandLine.arguments.dropFirst()
var runs = 3
var json = false
var filter: String?
var it = args.makeIterator()
while let a = it.next() {
    switch a {
    case "--runs": runs = max(1, Int(it.next() ?? "") ?? 3)
    case "--json": json = true
    case "--filter": filter = it.next()
    case "--help", "-h":
        print("usage: fathom-bench [--runs N] [--json] [--filter TEXT]")
        exit(0)
    default:
        FileHandle.standardError.write(Data("fathom-bench: unknown argument '\(a)'\n".utf8))
        exit(64)
    }
}

let cores = ProcessInfo.processInfo.activeProcessorCount
let fullView = Location(name: "full", centerRe: "-0.5", centerIm: "0", radius: "1.5", maxIterations: 1000)
var cases: [Case] = []
for path in [ArithmeticPath.double, .doubleDouble] {
    for threads in Array(Set([1, cores])).sorted() {
        cases.append(Case(name: "direct \(path.rawValue), -2..1 x -1.5..1.5, 1000 iterations",
                          location: fullView, settings: RenderSettings(width: 1000, height: 1000, threads: threads, path: path)))
    }
}

var results: [Measurement] = []
for c in cases where filter.map({ c.name.contains($0) }) ?? true {
    var times: [Double] = []
    var iterations = 0
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try Renderer.render(location: c.location, settings: c.settings)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        iterations = result.field.iterationsRepresented
        blackHole(result)
    }
    times.sort()
    let median = times[times.count / 2]
    let m = Measurement(name: c.name, path: (c.settings.path ?? .double).rawValue, threads: c.settings.threads,
                        width: c.settings.width, height: c.settings.height, runs: runs, medianSeconds: median,
                        bestSeconds: times[0], iterations: iterations, mips: Double(iterations) / median / 1e6)
    results.append(m)
    if !json {
        print(String(format: "%-60@ %2d thread(s)  median %7.3f s  best %7.3f s  %8.1f M iter/s",
                     m.name as NSString, m.threads, m.medianSeconds, m.bestSeconds, m.mips))
    }
}
if json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(results), as: UTF8.self))
}
