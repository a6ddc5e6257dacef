// Embeds the GPU kernels' source in the Swift module it is applied to: `KernelSource.text`, the
// ABI header (CFathomGPU/include/FathomKernelABI.h) then the kernels (CFathomGPU/FathomKernels.h,
// then the reference orbit's FathomOrbit.h),
// written by the `embed-kernels` tool into this plugin's work folder. A build command with the
// three headers as its inputs: the build reruns it when either changes (Documentation/GPU.md).
// The headers are found through the CFathomGPU target, whatever target the plugin is applied to.
import PackagePlugin

@main
struct EmbedKernels: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // `Target.directoryURL` needs tools version 6.1; the C target's own property is 6.0.
        guard let gpu = try context.package.targets(named: ["CFathomGPU"]).first as? ClangSourceModuleTarget else {
            throw EmbedKernelsError.noKernelTarget
        }
        let headers = [
            gpu.directoryURL.appending(path: "include/FathomKernelABI.h"),
            gpu.directoryURL.appending(path: "FathomKernels.h"),
            gpu.directoryURL.appending(path: "FathomOrbit.h"),
        ]
        let output = context.pluginWorkDirectoryURL.appending(path: "KernelSource.swift")
        return [
            .buildCommand(
                displayName: "Embedding the GPU kernels' source in \(target.name)",
                executable: try context.tool(named: "embed-kernels").url,
                arguments: [output.path(percentEncoded: false)] + headers.map { $0.path(percentEncoded: false) },
                inputFiles: headers,
                outputFiles: [output]
            )
        ]
    }
}

enum EmbedKernelsError: Error, CustomStringConvertible {
    case noKernelTarget
    var description: String { "EmbedKernels: the package has no CFathomGPU target, whose headers hold the kernels" }
}
