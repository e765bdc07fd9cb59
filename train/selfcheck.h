// selfcheck.h — `lintra selfcheck`: a one-minute proof that the build works end to end: a float64
// gradcheck of a small network, then a tiny MLP trained with autograd whose loss must fall.
// Throws lintra::Error when a check fails.
#pragma once

namespace lintra {

void run_selfcheck();

}  // namespace lintra
