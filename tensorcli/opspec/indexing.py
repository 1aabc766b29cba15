"""The command entries of the indexing ops (gather / scatter / index_* / masked_* / take / tri-diag), keyed by registry name."""
from . import rules_indexing as ri
from ._entry import Op

ENTRIES = {
    "gather": Op("tensorcli gather '[[1,2,3],[4,5,6]]' --dim 1 --index '[[0,2],[1,0]]' --explain", rule=ri.gather_rule),
    "scatter": Op("tensorcli scatter '[0,0,0,0]' --dim 0 --index '[1,3,1]' --src '[10,20,30]' --explain",
                  choices={"reduce": ("add", "multiply")},
                  rule=ri.scatter_rule),
    "scatter_add": Op("tensorcli scatter-add '[0,0,0,0]' --dim 0 --index '[1,3,1]' --src '[10,20,30]' --explain",
                      rule=ri.scatter_add_rule),
    "scatter_reduce": Op("tensorcli scatter-reduce '[0,0,0]' --dim 0 --index '[2,2,0]' --src '[5,7,1]'"
                         " --reduce amax --explain",
                         choices={"reduce": ("sum", "prod", "mean", "amax", "amin")},
                         rule=ri.scatter_reduce_rule),
    "index_select": Op("tensorcli index-select '[[1,2,3],[4,5,6]]' --dim 1 --index '[2,0]' --explain",
                       rule=ri.index_select_rule),
    "index_add": Op("tensorcli index-add '[[1,2,3],[4,5,6]]' --dim 1 --index '[2,0]' --source '[[10,20],[30,40]]'"
                    " --explain",
                    rule=ri.index_add_rule),
    "index_fill": Op("tensorcli index-fill '[[1,2,3],[4,5,6]]' --dim 1 --index '[2,0]' --value -1",
                     rule=ri.index_fill_rule),
    "masked_fill": Op("tensorcli masked-fill '[[1,2,3],[4,5,6]]' --mask '[[true,false,true],[false,false,true]]'"
                      " --value 0",
                      rule=ri.masked_fill_rule),
    "masked_select": Op("tensorcli masked-select '[[1,2,3],[4,5,6]]'"
                        " --mask '[[true,false,true],[false,false,true]]' --explain",
                        rule=ri.masked_select_rule),
    "masked_scatter": Op("tensorcli masked-scatter '[[1,2,3],[4,5,6]]'"
                         " --mask '[[true,false,true],[false,false,true]]' --source '[10,20,30,40]' --explain",
                         rule=ri.masked_scatter_rule),
    "take": Op("tensorcli take '[[1,2,3],[4,5,6]]' --index '[[0,5],[3,1]]'", rule=ri.take_rule),
    "take_along_dim": Op("tensorcli take-along-dim '[[1,2,3],[4,5,6]]' --indices '[[0,2],[1,0]]' --dim 1 --explain",
                         params={"indices": "tensor"},
                         rule=ri.take_along_dim_rule),
    "put": Op("tensorcli put '[[1,2,3],[4,5,6]]' --index '[0,5,0]' --source '[10,20,30]' --accumulate --explain",
              rule=ri.put_rule),
    "nonzero": Op("tensorcli nonzero '[[0,1],[2,0]]'"),
    "argwhere": Op("tensorcli argwhere '[[0,1],[2,0]]'"),
    "one_hot": Op("tensorcli one-hot '[0,2,1]' --num-classes 4", rule=ri.one_hot_rule),
    "unravel_index": Op("tensorcli unravel-index '[5,7,-1]' --shape 3,4", params={"indices": "tensor"}),
    "triu_indices": Op("tensorcli triu-indices --row 3 --col 3 --explain", params={"row": "int", "col": "int"}),
    "tril_indices": Op("tensorcli tril-indices --row 3 --col 3 --explain", params={"row": "int", "col": "int"}),
    "triu": Op("tensorcli triu '[[1,2,3],[4,5,6]]' --diagonal 1 --explain", rule=ri.triu_rule),
    "tril": Op("tensorcli tril '[[1,2,3],[4,5,6]]' --explain", rule=ri.tril_rule),
    "diagonal": Op("tensorcli diagonal '[[1,2,3],[4,5,6]]' --offset 1", rule=ri.diagonal_rule),
    "diag_embed": Op("tensorcli diag-embed '[[1,2],[3,4]]'", rule=ri.diag_embed_rule),
    "diag": Op("tensorcli diag '[1,2,3]'"),
    "nonzero_static": Op("tensorcli nonzero-static '[[0,1],[2,0]]' --size 3 --explain", params={"size": "int"}),
    "index_put": Op("tensorcli index-put '[[1,2,3],[4,5,6]]' --indices '[0,1]' --indices '[2,0]' --values '[9,8]'"
                    " --accumulate --explain",
                    rule=ri.index_put_rule),
    "index_copy": Op("tensorcli index-copy '[[1,2,3],[4,5,6]]' --dim 1 --index '[2,0]' --source '[[10,20],[30,40]]'"
                     " --explain",
                     rule=ri.index_copy_rule),
    "index_reduce": Op("tensorcli index-reduce '[[1,2,3],[4,5,6]]' --dim 1 --index '[2,2]'"
                       " --source '[[10,20],[30,40]]' --reduce amax --explain",
                       choices={"reduce": ("prod", "mean", "amax", "amin")},
                       rule=ri.index_reduce_rule),
    "select_scatter": Op("tensorcli select-scatter '[[1,2,3],[4,5,6]]' --src '[7,8]' --dim 1 --index 0 --explain",
                         params={"index": "int"},
                         rule=ri.select_scatter_rule),
    "slice_scatter": Op("tensorcli slice-scatter '[[1,2,3],[4,5,6]]' --src '[[7,8],[9,10]]' --dim 1 --start 0"
                        " --step 2 --explain",
                        params={"end": "int"},
                        rule=ri.slice_scatter_rule),
    "diagonal_scatter": Op("tensorcli diagonal-scatter '[[1,2,3],[4,5,6]]' --src '[7,8]' --offset 1 --explain",
                           rule=ri.diagonal_scatter_rule),
}
