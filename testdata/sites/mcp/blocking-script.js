// blocking-script.html's slow script.
window.blockingScriptRan = true;
