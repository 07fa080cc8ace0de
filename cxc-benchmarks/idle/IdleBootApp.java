import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The baseline of idle-cpu.sh: a Boot app with nothing of its own, run as a single source file on
 * the sample app's libraries without CXC's, so it starts what they start (Tomcat, Actuator) and
 * nothing else. No component scan: this file has no package.
 */
@EnableAutoConfiguration
public class IdleBootApp {
    public static void main(String[] args) {
        SpringApplication.run(IdleBootApp.class, args);
    }
}
