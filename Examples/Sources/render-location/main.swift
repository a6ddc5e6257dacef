// render-location FILE OUT.png [WIDTHxHEIGHT]: renders a location file (Fathom JSON, a .kfr,
// an oracle file or a PNG Fathom wrote) with its colour and engine settings, printing progress,
// and stops cleanly on Ctrl-C: the render is cancelled and nothing is written (the library
// stages every output and commits it only when the render finishes).
import Dispatch
import Fathom
import Foundation
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: render-location FILE OUT.png [WIDTHxHEIGHT]\n".utf8))
    exit(64)
}
var settings = RenderSettings(width: 640, height: 360)
if arguments.count == 4 {
    let sides = arguments[3].split(separator: "x").compactMap { Int($0) }
    guard sides.count == 2 else {
        FileHandle.standardError.write(Data("render-location: size '\(arguments[3])' is not WIDTHxHEIGHT\n".utf8))
        exit(64)
    }
    (settings.width, settings.height) = (sides[0], sides[1])
}

// Progress on stderr, a line each tenth; Ctrl-C cancels the render.
let lastTenth = Mutex(-1)
let control = RenderControl { fraction in
    let tenth = Int(fraction * 10)
    let changed = lastTenth.withLock { last in
        guard tenth > last else { return false }
        last = tenth
        return true
    }
    if changed { FileHandle.standardError.write(Data("render-location: \(tenth * 10)%\n".utf8)) }
}
let interrupt = cancelOnInterrupt(control)

do {
    let file = try LocationFile.read(path: arguments[1])
    let result = try ImageRender.render(file, settings: settings, to: arguments[2], control: control)
    print(
        "wrote \(arguments[2]): \(settings.width)x\(settings.height), \(result.report.path), \(String(format: "%.2f", result.report.seconds)) s"
    )
} catch RenderError.cancelled {
    FileHandle.standardError.write(Data("render-location: cancelled, nothing written\n".utf8))
    exit(130)
} catch {
    FileHandle.standardError.write(Data("render-location: \(error)\n".utf8))
    exit(1)
}

/// Ctrl-C (SIGINT) cancels `control`: a signal source on a queue of its own. A function, not
/// top-level code: a closure written at the top level of main.swift is isolated to the main
/// actor (Swift 6), and the main thread is inside the render when the signal comes, so Swift
/// would stop the process when Dispatch ran that closure on its queue.
func cancelOnInterrupt(_ control: RenderControl) -> DispatchSourceSignal {
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "interrupt"))
    source.setEventHandler { control.cancel() }
    source.resume()
    return source
}
