package io.subetha.cxc.integration;

import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.process.Pids;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A child JVM running Spring Integration's {@link LockRegistryLeaderInitiator} over a {@link
 * CxcLockRegistry} on {@code args[0]}: prints {@code granted <pid> <token>} when this process
 * becomes leader and {@code revoked <pid>} when it stops; exits when stdin closes.
 */
public final class LeaderChild {

    static final String ROLE = "cxc-leader";

    private LeaderChild() {}

    public static void main(String[] args) throws Exception {
        OwnerLease leases = OwnerLease.openOrCreate(Path.of(args[0]), new OwnerLease.Settings(16));
        CxcLockRegistry registry = new CxcLockRegistry(leases);
        long pid = Pids.current();
        DefaultCandidate candidate =
                new DefaultCandidate("child-" + pid, ROLE) {
                    @Override
                    public void onGranted(Context context) {
                        long token = leases.holder(ROLE).orElseThrow().token();
                        System.out.println("granted " + pid + " " + token);
                        System.out.flush();
                    }

                    @Override
                    public void onRevoked(Context context) {
                        System.out.println("revoked " + pid);
                        System.out.flush();
                    }
                };
        LockRegistryLeaderInitiator initiator =
                new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(20);
        initiator.start();
        System.out.println("ready " + pid);
        System.out.flush();
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // commands are not needed: the test only kills
        }
        initiator.stop();
        System.exit(0);
    }
}
