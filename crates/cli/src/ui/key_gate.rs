//! Lets the key reader thread stand aside while another program (the
//! external editor) owns the terminal; shared by the reader started in
//! `ui::run` and `handlers::external_editor`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Lets the key reader thread stand aside while another program owns the
/// terminal.
#[derive(Default)]
pub struct KeyGate {
    paused: AtomicBool,
    idle: AtomicBool,
}

impl KeyGate {
    /// Called by the key reader before each poll: true when it must not
    /// read (it then reports itself idle).
    pub fn hold(&self) -> bool {
        let paused = self.paused.load(Ordering::SeqCst);
        self.idle.store(paused, Ordering::SeqCst);
        paused
    }

    /// Stops the reader and waits (briefly) until it is idle.
    pub fn pause(&self) {
        self.idle.store(false, Ordering::SeqCst);
        self.paused.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.idle.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Lets the reader go on.
    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_gate_waits_for_the_reader() {
        let gate = Arc::new(KeyGate::default());
        let g = gate.clone();
        let reader = std::thread::spawn(move || {
            for _ in 0..100 {
                if g.hold() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            false
        });
        gate.pause();
        assert!(reader.join().unwrap());
        gate.resume();
        assert!(!gate.hold());
    }
}
