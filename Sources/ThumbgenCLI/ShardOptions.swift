import ArgumentParser
import Foundation
import Thumbgen

/// `--shard`: run only one part of the manifest, for array jobs (docs/cache.md, "Sharding").
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Run only shard I of N (I from 0): the rows whose source hashes to I. auto reads I (and N) from a Kubernetes Indexed Job, a Slurm array or an AWS Batch array job; auto/N gives N where the engine does not.",
        valueName: "I/N|auto|auto/N"))
    var shard: String?

    /// The shard asked for, nil for the whole manifest; an unusable value or environment is
    /// reported and ends the run with status 2.
    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Shard? {
        guard let shard else { return nil }
        do {
            return try ShardEnvironment.shard(shard, environment: environment)
        } catch {
            printError(error.description)
            throw ExitStatus.unusable
        }
    }
}
