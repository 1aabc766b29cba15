"""The command entries of torch.masked's reductions and normalizations, keyed by registry name."""
from ._entry import Op

ENTRIES = {
    "masked.sum": Op("tensorcli masked.sum '[[1.0,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]'"
                     " --dim 1 --explain"),
    "masked.prod": Op("tensorcli masked.prod '[[1.0,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]'"
                      " --dim 1 --explain"),
    "masked.amax": Op("tensorcli masked.amax '[[1.0,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]'"
                      " --dim 1 --explain"),
    "masked.amin": Op("tensorcli masked.amin '[[1.0,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]'"
                      " --dim 1 --explain"),
    "masked.argmax": Op("tensorcli masked.argmax '[[1.0,2,3],[4,5,7]]'"
                        " --mask '[[true,false,true],[false,true,true]]' --dim 1 --explain"),
    "masked.argmin": Op("tensorcli masked.argmin '[[1.0,2,3],[4,5,7]]'"
                        " --mask '[[true,false,true],[false,true,true]]' --dim 1 --explain"),
    "masked.mean": Op("tensorcli masked.mean '[[1.0,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]'"
                      " --dim 1 --explain"),
    "masked.median": Op("tensorcli masked.median '[[1.0,2,3],[4,5,6]]'"
                        " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain"),
    "masked.logsumexp": Op("tensorcli masked.logsumexp '[[1.0,2,3],[4,5,6]]'"
                           " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain"),
    "masked.norm": Op("tensorcli masked.norm '[[1.0,-2,3],[4,5,6]]' --ord 2"
                      " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain",
                      params={"ord": "number"}),
    "masked.var": Op("tensorcli masked.var '[[1.0,2,3],[4,5,7]]' --mask '[[true,false,true],[false,true,true]]'"
                     " --dim 1 --explain"),
    "masked.std": Op("tensorcli masked.std '[[1.0,2,3],[4,5,7]]' --mask '[[true,false,true],[false,true,true]]'"
                     " --dim 1 --explain"),
    "masked.cumsum": Op("tensorcli masked.cumsum '[[1.0,2,3],[4,5,6]]'"
                        " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain"),
    "masked.cumprod": Op("tensorcli masked.cumprod '[[1.0,2,3],[4,5,6]]'"
                         " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain"),
    "masked.softmax": Op("tensorcli masked.softmax '[[1.0,2,3],[4,5,6]]'"
                         " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain"),
    "masked.log_softmax": Op("tensorcli masked.log-softmax '[[1.0,2,3],[4,5,6]]' --mask '[[true,true,true]]'"
                             " --dim 1 --explain"),
    "masked.softmin": Op("tensorcli masked.softmin '[[1.0,2,3],[4,5,6]]'"
                         " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain"),
    "masked.normalize": Op("tensorcli masked.normalize '[[1.0,2,3],[4,5,6]]' --ord 2"
                           " --mask '[[true,false,true],[false,false,true]]' --dim 1 --explain",
                           params={"ord": "number"}),
    "masked.logaddexp": Op("tensorcli masked.logaddexp '[1.0,2,3]' --other '[0.5,4,1]'"
                           " --input-mask '[true,false,true]' --other-mask '[true,true,false]' --explain",
                           params={"input_mask": "tensor", "other_mask": "tensor"}),
}
