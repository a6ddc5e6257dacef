import Foundation
import FractalEngine

func NSTemporaryDirectoryPath() -> String { NSTemporaryDirectory() }
func removeFile(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

extension Renderer {
    /// The engine alone renders on the CPU (the GPU backends are FathomGPU's, tested in
    /// FathomTests).
    static func render(location: Location, settings: RenderSettings, control: RenderControl? = nil) throws
        -> RenderResult
    {
        try render(location: location, settings: settings, device: nil, control: control)
    }
}
