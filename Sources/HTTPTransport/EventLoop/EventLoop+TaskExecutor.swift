/// An event loop runs tasks that prefer it, so a handler that must await something (an
/// upstream request) can resume on the loop of the connection it answers.
///
/// Without it, a task started by a handler runs on the global pool: one wake-up to start
/// it, one to resume it there after the await, and one more to hand the answer back to the
/// loop. With the loop as the task's executor, the task starts on the loop without a
/// wake-up and answers the connection directly when it resumes.
///
/// ```swift
/// Task(executorPreference: responder.eventLoop) {
///     let answer = await upstream.fetch()
///     responder.respond(answer)          // on the loop: written at once
/// }
/// ```
///
/// Keep such tasks short between awaits: while one runs, the loop serves no other socket.
/// Once the loop has stopped, its jobs run on the global concurrent executor instead: a
/// task must never be left suspended for ever because its preferred loop is gone.
extension EventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        do {
            try execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        } catch {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }
}
