package dev.cdccache.verifier.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RestartGateTest {

    @Test
    void aReaderArrivingWhileARestartWaitsIsTurnedAwaySoOverlappingReadersCannotStarveTheRestart() throws Exception {
        RestartGate gate = new RestartGate();
        assertThat(gate.tryEnter()).as("the first reader enters").isTrue();

        CountDownLatch restarted = new CountDownLatch(1);
        CountDownLatch reopen = new CountDownLatch(1);
        Thread restart = new Thread(() -> {
            gate.closeForRestart();
            restarted.countDown();
            try {
                reopen.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                gate.reopen();
            }
        }, "restart");
        restart.start();
        while (restart.getState() != Thread.State.WAITING) { // queued behind the first reader
            Thread.onSpinWait();
        }

        boolean secondReaderEntered = CompletableFuture.supplyAsync(gate::tryEnter).get(5, TimeUnit.SECONDS);
        assertThat(secondReaderEntered).as("a reader arriving while the restart waits").isFalse();

        gate.leave(); // the first reader leaves: with nobody else inside, the restart gets in
        assertThat(restarted.await(5, TimeUnit.SECONDS)).as("the restart got in").isTrue();
        assertThat(CompletableFuture.supplyAsync(gate::tryEnter).get(5, TimeUnit.SECONDS))
                .as("a reader during the restart").isFalse();

        reopen.countDown();
        restart.join(5_000);
        assertThat(CompletableFuture.supplyAsync(() -> {
            boolean entered = gate.tryEnter();
            if (entered) {
                gate.leave();
            }
            return entered;
        }).get(5, TimeUnit.SECONDS)).as("a reader after the restart").isTrue();
    }
}
