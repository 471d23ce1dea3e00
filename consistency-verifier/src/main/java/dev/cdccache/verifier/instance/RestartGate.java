package dev.cdccache.verifier.instance;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps readers out of a client instance while it is swapped for a new one. Readers never wait: they skip a read
 * while a restart is waiting or running. A waiting restart gets in as soon as the readers inside leave, even when
 * their reads overlap without a gap: a read lock's {@code tryLock} would otherwise barge ahead of the queued
 * restart for as long as some reader is always inside, and the restart would wait for ever.
 */
final class RestartGate {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    /** @return whether the caller may read; if so it must call {@link #leave()} */
    boolean tryEnter() {
        // the only threads that ever queue are restarts: readers use tryLock
        return !lock.hasQueuedThreads() && lock.readLock().tryLock();
    }

    void leave() {
        lock.readLock().unlock();
    }

    /** Waits until no reader is inside, and keeps new ones out until {@link #reopen()}. */
    void closeForRestart() {
        lock.writeLock().lock();
    }

    void reopen() {
        lock.writeLock().unlock();
    }

    /** Enters like a reader, but waits for a running or waiting restart instead of skipping; then {@link #leave()}. */
    void enterWaiting() {
        lock.readLock().lock();
    }
}
