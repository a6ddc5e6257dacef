import Fathom
import Foundation

let loc = Location(centerRe: "-0.5", centerIm: "0", radius: "1.5", maxIterations: 1000)
for threads in [1] {
    for path in [ArithmeticPath.double, .doubleDouble] {
        let r = try Renderer.render(location: loc, settings: RenderSettings(width: 1000, height: 1000, threads: threads, path: path))
        print(path, threads, r.report.seconds, Double(r.report.iterations) / r.report.seconds / 1e6)
    }
}
